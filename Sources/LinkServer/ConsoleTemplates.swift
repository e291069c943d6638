// The console's templates and stylesheet, compiled into the binary (the admin listener serves
// them; the public listener has no path to them). Rendered by the landing pages' Mustache engine
// in HTML mode, so every value is escaped for where it lands. No script: every task is a form.

import LandingPages

enum ConsoleTemplates {
    static let partials: [String: String] = [
        "head": """
            <meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <meta name="color-scheme" content="light dark">
            <meta name="referrer" content="same-origin">
            <link rel="stylesheet" href="/console/console.css">
            """,
        "begin": """
            <!doctype html>
            <html lang="en">
            <head>
            {{> head}}
            <title>{{title}} · Linkwell console</title>
            </head>
            <body>
            {{> nav}}
            """,
        "end": """
            </body>
            </html>
            """,
        "nav": """
            <header class="top"><p class="brand"><a href="/">Linkwell console</a></p>
            {{#user}}<nav aria-label="Console"><ul>
            <li><a href="/"{{#onLinks}} aria-current="page"{{/onLinks}}>Links</a></li>
            <li><a href="/console/stats"{{#onStats}} aria-current="page"{{/onStats}}>Counts</a></li>
            <li><a href="/console/routes"{{#onRoutes}} aria-current="page"{{/onRoutes}}>Routes</a></li>
            {{#canImport}}<li><a href="/console/import"{{#onImport}} aria-current="page"{{/onImport}}>Import</a></li>{{/canImport}}
            {{#canAudit}}<li><a href="/console/audit"{{#onAudit}} aria-current="page"{{/onAudit}}>Audit log</a></li>{{/canAudit}}
            </ul></nav>
            <form class="who" method="post" action="/console/sign-out"><span>{{user}} <span class="scope">({{scope}})</span></span>
            <input type="hidden" name="csrf" value="{{csrf}}"><button type="submit">Sign out</button></form>{{/user}}
            </header>
            """,
        "flash": """
            {{#notice}}<p class="notice" role="status">{{notice}}</p>{{/notice}}
            {{#problem}}<p class="problem" role="alert">{{problem}}</p>{{/problem}}
            """,
    ]

    static let signIn = """
        {{> begin}}
        <main class="narrow">
        <h1>Sign in</h1>
        {{> flash}}
        <form method="post" action="/console/sign-in">
        <input type="hidden" name="csrf" value="{{csrf}}">
        <label for="token">API token</label>
        <input id="token" name="token" type="password" autocomplete="current-password" required{{#problem}} aria-describedby="sign-in-problem"{{/problem}}>
        <p class="hint">A token from <code>linkwell tokens create --scope read|write|admin</code>. It is sent once and never shown in an address or a log.</p>
        <button type="submit">Sign in</button>
        </form>
        </main>
        {{> end}}
        """

    static let routes = """
        {{> begin}}
        <main>
        <h1>Routes and association files</h1>
        <form class="filter" method="get" action="/console/routes">
        <label for="site">Site</label>
        <select id="site" name="site">{{#sites}}<option value="{{name}}"{{#selected}} selected{{/selected}}>{{name}}</option>{{/sites}}</select>
        <button type="submit">Show</button>
        </form>
        <section aria-labelledby="tester-h"><h2 id="tester-h">Test a URL</h2>
        <form class="filter" method="get" action="/console/routes">
        <label for="url">URL</label>
        <input id="url" name="url" type="url" value="{{url}}" size="48" placeholder="https://{{host}}/…">
        <button type="submit">Test</button>
        </form>
        {{#test}}<div id="result" data-status="{{status}}">
        <p id="summary">{{summary}}</p>
        {{#route}}<p>Route: <strong id="route">{{route}}</strong></p>{{/route}}
        {{#hasParameters}}<div class="table-wrap"><table id="parameters"><caption>Parameters</caption>
        <thead><tr><th scope="col">Name</th><th scope="col">Value</th></tr></thead>
        <tbody>{{#parameters}}<tr><td data-label="Name">{{name}}</td><td data-label="Value">{{value}}</td></tr>{{/parameters}}</tbody></table></div>{{/hasParameters}}
        {{#hasClaims}}<div class="table-wrap wrap"><table id="claims"><caption>Which app claims it (the served association files)</caption>
        <thead><tr><th scope="col">Platform</th><th scope="col">App</th><th scope="col">Verdict</th></tr></thead>
        <tbody>{{#claims}}<tr><td data-label="Platform">{{platform}}</td><td data-label="App">{{app}}</td><td data-label="Verdict">{{verdict}}</td></tr>{{/claims}}</tbody></table></div>{{/hasClaims}}
        {{#hasBrowsers}}<div class="table-wrap wrap"><table id="browsers"><caption>What a browser gets from this server</caption>
        <thead><tr><th scope="col">Browser</th><th scope="col">Answer</th></tr></thead>
        <tbody>{{#browsers}}<tr><td data-label="Browser">{{name}}</td><td data-label="Answer">{{answer}}</td></tr>{{/browsers}}</tbody></table></div>{{/hasBrowsers}}
        <p>The same as <code>linkwell check {{url}}</code>.</p>
        </div>{{/test}}
        </section>
        <section aria-labelledby="routes-h"><h2 id="routes-h">Route table of {{site}}</h2>
        <div class="table-wrap wrap"><table id="route-table"><caption>In priority order: the first entry that matches decides</caption>
        <thead><tr><th scope="col">#</th><th scope="col">Route</th><th scope="col">Path</th><th scope="col">iOS apps</th><th scope="col">Android apps</th></tr></thead>
        <tbody>{{#entries}}<tr><td data-label="#">{{index}}</td><td data-label="Route">{{name}}</td><td data-label="Path"><code>{{pattern}}</code></td><td data-label="iOS apps">{{ios}}</td><td data-label="Android apps">{{android}}</td></tr>{{/entries}}</tbody>
        </table></div>
        </section>
        <section aria-labelledby="files-h"><h2 id="files-h">Association files as served</h2>
        {{#hasWarnings}}<ul id="warnings" class="problem">{{#warnings}}<li>{{text}}</li>{{/warnings}}</ul>{{/hasWarnings}}
        {{^hasWarnings}}<p id="warnings">No warnings (the same checks as <code>linkwell validate</code>).</p>{{/hasWarnings}}
        {{#files}}<h3><code>https://{{host}}{{path}}</code> ({{bytes}} bytes)</h3>
        <pre id="file-{{id}}" tabindex="0">{{text}}</pre>{{/files}}
        <h3>Offline checks</h3>
        <p>What <code>linkwell doctor --offline</code> checks in the files, run here on what this server serves (through a proxy, run the command below: it fetches them as Apple and Google do):</p>
        <ul id="checks" class="checks">{{#checks}}<li class="{{result}}"><strong>{{label}}</strong> {{what}}{{#fix}} — fix: {{fix}}{{/fix}}</li>{{/checks}}</ul>
        <h3>Online checks</h3>
        <p>What Apple's CDN and Google's Digital Asset Links API see needs the network; run:</p>
        {{#doctor}}<pre tabindex="0"><code>{{command}}</code></pre>{{/doctor}}
        </section>
        </main>
        {{> end}}
        """

    static let importLinks = """
        {{> begin}}
        <main>
        <h1>Import a Firebase Takeout</h1>
        {{> flash}}
        {{#report}}<section aria-labelledby="report-heading" id="report">
        <h2 id="report-heading">Report</h2>
        <p>{{records}} rows for {{site}}: <strong id="imported">{{imported}}</strong> imported, <span id="updated">{{updated}}</span> updated, <span id="unchanged">{{unchanged}}</span> unchanged, <span id="skipped">{{skippedCount}}</span> skipped, <span id="errors">{{errorCount}}</span> in error.</p>
        {{#hasImported}}<div class="table-wrap"><table id="imported-rows"><caption>Imported and updated</caption>
        <thead><tr><th scope="col">Row</th><th scope="col">Code</th><th scope="col">Target</th></tr></thead>
        <tbody>{{#importedRows}}<tr><td data-label="Row">{{row}}</td><td data-label="Code"><code>{{code}}</code>{{#disabled}} (disabled){{/disabled}}</td><td class="url" data-label="Target">{{target}}</td></tr>{{/importedRows}}</tbody></table></div>{{/hasImported}}
        {{#hasSkipped}}<div class="table-wrap"><table id="skipped-rows"><caption>Skipped, and why</caption>
        <thead><tr><th scope="col">Row</th><th scope="col">Code</th><th scope="col">Reason</th></tr></thead>
        <tbody>{{#skipped}}<tr><td data-label="Row">{{row}}</td><td data-label="Code"><code>{{code}}</code></td><td data-label="Reason">{{reason}}</td></tr>{{/skipped}}</tbody></table></div>{{/hasSkipped}}
        {{#hasErrors}}<div class="table-wrap"><table id="error-rows"><caption>Rows in error (not imported)</caption>
        <thead><tr><th scope="col">Row</th><th scope="col">Problem</th><th scope="col">Fix</th></tr></thead>
        <tbody>{{#errors}}<tr><td data-label="Row">{{row}}</td><td data-label="Problem">{{message}}</td><td data-label="Fix">{{fix}}</td></tr>{{/errors}}</tbody></table></div>{{/hasErrors}}
        </section>{{/report}}
        <form method="post" action="/console/import" enctype="multipart/form-data">
        <input type="hidden" name="csrf" value="{{csrf}}">
        <label for="site">Site</label>
        <select id="site" name="site">{{#sites}}<option value="{{name}}">{{name}}</option>{{/sites}}</select>
        <label for="archived">Links archived in Firebase</label>
        <select id="archived" name="archived">{{#policies}}<option value="{{name}}"{{#selected}} selected{{/selected}}>{{name}}</option>{{/policies}}</select>
        <label for="file">Takeout CSV file</label>
        <input id="file" name="file" type="file" accept=".csv,text/csv" required>
        <p class="hint">The same import as <code>linkwell links import --fdl-takeout FILE --site SITE</code>: a second upload of the same file changes nothing.</p>
        <button type="submit">Import</button>
        </form>
        </main>
        {{> end}}
        """

    static let audit = """
        {{> begin}}
        <main>
        <h1>Audit log</h1>
        <div class="table-wrap"><table>
        <caption>Every write, newest first</caption>
        <thead><tr><th scope="col">When (UTC)</th><th scope="col">Who</th><th scope="col">What</th><th scope="col">Link</th><th scope="col">Outcome</th><th scope="col">From</th></tr></thead>
        <tbody>
        {{#entries}}<tr><td data-label="When">{{at}}</td><td data-label="Who">{{actor}} <span class="muted">({{via}})</span></td><td data-label="What">{{action}}</td><td data-label="Link">{{link}}</td><td data-label="Outcome">{{outcome}}</td><td data-label="From">{{client}}</td></tr>
        {{/entries}}</tbody>
        </table></div>
        {{#next}}<p><a href="{{next}}">Older entries</a></p>{{/next}}
        </main>
        {{> end}}
        """

    static let message = """
        {{> begin}}
        <main class="narrow">
        <h1>{{title}}</h1>
        <p>{{message}}</p>
        <p><a href="/">Back to the console</a></p>
        </main>
        {{> end}}
        """

    static let stylesheet = """
        :root { color-scheme: light dark; --fg: #1d1d1f; --bg: #fafafa; --card: #fff; --accent: #3b4cca; --on-accent: #fff; --muted: #56565c; --line: #d2d2d7; --bad: #a4161a; --good: #17613a; }
        @media (prefers-color-scheme: dark) { :root { --fg: #f5f5f7; --bg: #111113; --card: #1c1c1f; --accent: #8c9bff; --on-accent: #0b0b10; --muted: #b4b4ba; --line: #3a3a3f; --bad: #ff8a8f; --good: #7ddc9f; } }
        * { box-sizing: border-box; }
        body { margin: 0; font: 16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans", sans-serif; color: var(--fg); background: var(--bg); }
        header.top { display: flex; flex-wrap: wrap; gap: .5rem 1.5rem; align-items: center; padding: .75rem 1rem; border-bottom: 1px solid var(--line); background: var(--card); }
        .brand { margin: 0; font-weight: 700; }
        .brand a { color: var(--fg); text-decoration: none; }
        nav ul { display: flex; gap: 1rem; margin: 0; padding: 0; list-style: none; }
        nav a[aria-current] { font-weight: 700; }
        .who { margin-left: auto; display: flex; gap: .5rem; align-items: center; }
        main { max-width: 72rem; margin: 0 auto; padding: 1.5rem 1rem; }
        main.narrow { max-width: 30rem; }
        h1 { font-size: 1.6rem; margin: 0 0 1rem; }
        a { color: var(--accent); }
        label { display: block; font-weight: 600; margin: .75rem 0 .25rem; }
        .filter label { display: inline; margin-right: .5rem; }
        input, select, button { font: inherit; min-height: 44px; padding: .4rem .6rem; border-radius: .4rem; border: 1px solid var(--line); background: var(--card); color: var(--fg); }
        input[type=password], input[type=text] { width: 100%; }
        button { background: var(--accent); color: var(--on-accent); border-color: var(--accent); font-weight: 600; cursor: pointer; }
        button:focus-visible, a:focus-visible, input:focus-visible, select:focus-visible { outline: 3px solid var(--accent); outline-offset: 2px; }
        .hint, .muted, .scope { color: var(--muted); font-size: .9rem; }
        .notice { padding: .6rem .8rem; border-left: 4px solid var(--good); background: var(--card); }
        .problem { padding: .6rem .8rem; border-left: 4px solid var(--bad); background: var(--card); color: var(--bad); }
        .table-wrap { overflow-x: auto; }
        table { border-collapse: collapse; width: 100%; margin: 1rem 0; font-size: .95rem; }
        caption { text-align: left; font-weight: 600; padding: .25rem 0; }
        th, td { text-align: left; vertical-align: top; padding: .45rem .5rem; border-bottom: 1px solid var(--line); }
        td.url { overflow-wrap: anywhere; max-width: 28rem; }
        .status.disabled, .status.expired { color: var(--bad); font-weight: 600; }
        .status.live { color: var(--good); font-weight: 600; }
        td form button { min-height: 36px; padding: .2rem .6rem; }
        textarea { font: inherit; width: 100%; padding: .4rem .6rem; border-radius: .4rem; border: 1px solid var(--line); background: var(--card); color: var(--fg); }
        .field-problem { color: var(--bad); font-weight: 600; margin: .25rem 0; }
        [aria-invalid=true] { border: 2px solid var(--bad); }
        a.button { display: inline-block; padding: .5rem .9rem; border-radius: .4rem; background: var(--accent); color: var(--on-accent); font-weight: 600; text-decoration: none; }
        h2 { font-size: 1.2rem; margin: 1.5rem 0 .5rem; }
        .card { border: 1px solid var(--line); border-radius: .75rem; padding: .75rem 1rem; background: var(--card); max-width: 26rem; }
        .card p { margin: .15rem 0; }
        .card-host { color: var(--muted); font-size: .85rem; text-transform: lowercase; }
        .card-title { font-weight: 700; }
        figure.qr { margin: .5rem 0; }
        figure.chart { margin: 1rem 0; }
        svg.chart { width: 100%; height: auto; max-width: 48rem; }
        svg.chart .bar { fill: var(--accent); }
        svg.chart .axis { stroke: var(--line); }
        svg.chart .label { fill: var(--muted); font-size: 12px; }
        .grid { display: grid; grid-template-columns: repeat(auto-fit, minmax(16rem, 1fr)); gap: 0 1.5rem; }
        .filter input { width: auto; }
        figure.qr svg { max-width: 100%; height: auto; }
        pre { overflow-x: auto; max-width: 100%; padding: .6rem .8rem; background: var(--card); border: 1px solid var(--line); border-radius: .4rem; font-size: .85rem; }
        .filter input[type=url] { width: 100%; max-width: 40rem; }
        .wrap td { overflow-wrap: anywhere; }
        /* A phone: each row a card, each cell labelled by its column. */
        @media (max-width: 40rem) {
          table, caption, tbody, tr, td { display: block; width: 100%; }
          thead { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); }
          tr { padding: .5rem 0; border-bottom: 1px solid var(--line); }
          td { border: 0; padding: .15rem 0; display: grid; grid-template-columns: 5.5rem 1fr; gap: .5rem; }
          td::before { content: attr(data-label); font-weight: 600; color: var(--muted); }
          td.url { max-width: none; }
          .wrap td { grid-template-columns: 5.5rem minmax(0, 1fr); }
        }
        """

    /// Every page, compiled once.
    struct Compiled: Sendable {
        let signIn, links, linkForm, stats, routes, importLinks, audit, message: Template
    }

    static let compiled: Compiled = {
        func page(_ name: String, _ source: String) -> Template {
            // The sources are constants: a compile error is a bug the console tests catch at once.
            try! Template(name: "console/\(name)", source: source, mode: .html, partials: partials)
        }
        return Compiled(signIn: page("sign-in", signIn), links: page("links", links), linkForm: page("link", linkForm), stats: page("stats", stats), routes: page("routes", routes), importLinks: page("import", importLinks), audit: page("audit", audit), message: page("message", message))
    }()
}
