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
//
// Serving Linkwell (all pure except ServerRuntime's one swap):
//   Snapshot            immutable: route table, per-site Site (prepared AASA/assetlinks + 304s),
//                       StaticAssets from public/, ProxyTrust, the PageRenderer
//   Responder           (Snapshot, RequestFacts) → ResponderResult (response, kind, site, route, client)
//   PageRenderer        seam for landing pages; MinimalPageRenderer is the default
//   ProxyTrust          trusted CIDRs (IPNetwork/IPAddress); Forwarded over X-Forwarded-*
//   ServerRuntime       current snapshot behind a Mutex, reload, public/admin handlers
//   Metrics, EventLog   Prometheus text; one JSON (or text) line per request/event on stdout
