// MicroHTTP — the generic HTTP layer over libmicrohttpd (CMicroHTTPD). It imports no Linkwell
// module (scripts/check-module-walls.sh), so it could serve any application.
//
//   HTTPDaemon          libmicrohttpd daemons (one per listen address), graceful quiesce/stop
//   HTTPDaemonOptions   listen addresses, threads, limits, completion summaries
//   HTTPHandler         request → response, called concurrently on daemon threads
//   HTTPRequest         method, raw target, lazy header/peer lookups
//   RequestFacts        plain values of a request, so a response can be computed without a socket
//   HTTPResponse        .prepared (built once, reused), .dynamic, or .spans (SpanBody: shared bytes by reference)
//   PreparedResponse    an MHD response over a buffer it owns
//   EntityTag, ConditionalResponse   strong ETags and the 200/304 pair
//   ListenAddress       numeric IPv4/IPv6 host + port
//   IPAddress, IPNetwork, ProxyTrust trusted CIDRs; Forwarded over X-Forwarded-*
