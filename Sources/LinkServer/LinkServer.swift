// LinkServer — the running Linkwell server (see docs/DESIGN.md, "Modules").
//
// HTTP layer (independent of Linkwell's configuration):
//   HTTPDaemon          libmicrohttpd daemons (one per listen address), graceful quiesce/stop
//   HTTPDaemonOptions   listen addresses, threads, limits, completion summaries
//   HTTPHandler         request → response, called concurrently on daemon threads
//   HTTPRequest         method, raw target, lazy header/peer lookups
//   HTTPResponse        .prepared (built once, reused) or .dynamic
//   PreparedResponse    an MHD response over a buffer it owns
//   ListenAddress       numeric IPv4/IPv6 host + port
