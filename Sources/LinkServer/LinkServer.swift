// LinkServer — the running Linkwell server (see docs/architecture.md). The generic HTTP layer
// (daemon, requests, prepared responses, addresses, proxy trust) is the MicroHTTP module.
//
// Serving Linkwell (all pure except ServerRuntime's one swap):
//   Snapshot            immutable: route table, per-site Site (prepared AASA/assetlinks + 304s),
//                       StaticAssets from public/, ProxyTrust, the PageRenderer
//   Responder           (Snapshot, RequestFacts) → ResponderResult (response, kind, site, route, client)
//   PageRenderer        seam for landing pages; LandingPageRenderer is the default
//   ServerRuntime       current snapshot behind a lock (Locked), reload, public/admin handlers
//   Metrics, EventLog   Prometheus text; one JSON (or text) line per request/event on stdout
