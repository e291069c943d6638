// LinkServer — the running Linkwell server (see docs/dev/architecture.md). The generic HTTP layer
// (daemon, requests, prepared responses, addresses, proxy trust) is the MicroHTTP module.
//
// Serving Linkwell (all pure except ServerRuntime's one swap):
//   Snapshot            immutable: route table, per-site Site (prepared AASA/assetlinks + 304s),
//                       StaticAssets from public/, ProxyTrust, the PageRenderer
//   Responder           (Snapshot, RequestFacts) → ResponderResult (response, kind, site, route, client):
//                       a flat list of steps (wellKnown, previewCard, staticAsset, longLink, route,
//                       shortLink, notFound)
//   LandingAnswerer     a matched link's LandingRequest → page or redirect, and the click's outcome
//   PageRenderer        seam for landing pages; LandingPageRenderer is the default
//   BoundedCache        every per-snapshot cache, within a count and a byte budget
//   HostMemo            each request thread's last Host → site, per snapshot
//   ServerRuntime       current snapshot behind a lock (Locked), reload, public/admin handlers
//   Metrics, EventLog   Prometheus text; one JSON (or text) line per request/event on stdout
