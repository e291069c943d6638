// The console's link pages: the list (search, sort, pages, a 7-day sparkline per link, checkboxes
// of the bulk form), the link form with every override the API accepts and the live previews
// (the landing page in three device frames, the chat card), and the delete confirmation. Each is
// a plain form: every task works with JavaScript off.

import LandingPages

extension ConsoleTemplates {
    static let links = """
        {{> begin}}
        <main>
        <h1>Links</h1>
        {{> flash}}
        <form class="filter" method="get" action="/" role="search">
        <label for="site">Site</label>
        <select id="site" name="site">{{#sites}}<option value="{{name}}"{{#selected}} selected{{/selected}}>{{name}}</option>{{/sites}}</select>
        <label for="q">Search</label>
        <input id="q" name="q" type="search" value="{{q}}" placeholder="code, target or title">
        <label for="sort">Sort by</label>
        <select id="sort" name="sort">{{#sorts}}<option value="{{value}}"{{#selected}} selected{{/selected}}>{{label}}</option>{{/sorts}}</select>
        <label for="dir">Order</label>
        <select id="dir" name="dir">{{#dirs}}<option value="{{value}}"{{#selected}} selected{{/selected}}>{{label}}</option>{{/dirs}}</select>
        <button type="submit">Show</button>
        </form>
        {{#shortSearch}}<p class="hint" id="short-search">A search of 1 or 2 characters matches the start of the code only; type 3 or more to search codes, targets and titles anywhere.</p>{{/shortSearch}}
        {{#canWrite}}<p><a class="button" href="/console/links/new?site={{site}}">New link</a></p>{{/canWrite}}
        {{#hasLinks}}<form id="bulk" method="post" action="/console/links/bulk" class="bulk">
        <input type="hidden" name="csrf" value="{{csrf}}"><input type="hidden" name="site" value="{{site}}">
        <span class="hint" id="bulk-label">With the selected links:</span>
        {{#canWrite}}<button type="submit" name="action" value="disable">Disable selected</button>{{/canWrite}}
        <button type="submit" name="action" value="export">Export selected as CSV</button>
        </form>
        <div class="table-wrap"><table id="links">
        <caption>Short links of {{site}}{{#q}} matching “{{q}}”{{/q}}, {{sortText}}, page {{page}}</caption>
        <thead><tr><th scope="col"><span class="visually-hidden" id="bulk-select">Select</span></th><th scope="col">Code</th><th scope="col">Target</th><th scope="col">Title</th><th scope="col">Clicks, 7 days</th><th scope="col">Status</th><th scope="col">Actions</th></tr></thead>
        <tbody>
        {{#links}}<tr><td data-label="Select"><input type="checkbox" form="bulk" name="select" value="{{code}}" id="select-{{code}}" aria-labelledby="bulk-select select-name-{{code}}"><span class="visually-hidden" id="select-name-{{code}}">{{code}}</span></td>
        <td data-label="Code"><a href="{{editURL}}"><code>{{code}}</code></a></td><td class="url" data-label="Target">{{target}}</td><td data-label="Title">{{title}}</td>
        <td data-label="Clicks, 7 days"><span class="spark-cell"><svg class="spark" viewBox="0 0 69 20" width="69" height="20" role="img" aria-label="{{sparkLabel}}">{{#bars}}<rect x="{{x}}" y="{{y}}" width="8" height="{{h}}"></rect>{{/bars}}</svg> <span class="clicks">{{clicks}}</span></span></td>
        <td data-label="Status"><span class="status {{status}}">{{status}}</span></td>
        <td data-label="Actions">{{#canWrite}}<span class="actions"><form method="post" action="/console/links/toggle"><input type="hidden" name="csrf" value="{{csrf}}"><input type="hidden" name="site" value="{{site}}"><input type="hidden" name="code" value="{{code}}"><input type="hidden" name="action" value="{{action}}"><button type="submit" aria-label="{{actionLabel}} {{code}}">{{actionLabel}}</button></form>
        <a class="danger" href="{{deleteURL}}" aria-label="Delete {{code}}">Delete</a></span>{{/canWrite}}{{^canWrite}}<span class="muted">read only</span>{{/canWrite}}</td></tr>
        {{/links}}</tbody>
        </table></div>
        <nav class="pages" aria-label="Pages">{{#previous}}<a href="{{previous}}" rel="prev">Previous page</a>{{/previous}} {{#next}}<a href="{{next}}" rel="next">Next page</a>{{/next}}</nav>{{/hasLinks}}
        {{^hasLinks}}<p>{{#q}}No short links of {{site}} match “{{q}}”{{#paged}} on this page{{/paged}}.{{/q}}{{^q}}No short links on {{site}}{{#paged}} on this page{{/paged}} yet.{{/q}}</p>{{/hasLinks}}
        </main>
        {{> end}}
        """

    static let linkForm = """
        {{> begin}}
        <main class="{{#editing}}wide{{/editing}}{{^editing}}narrow{{/editing}}">
        <h1>{{title}}</h1>
        {{> flash}}
        {{#editing}}<p>Short link: <a href="{{url}}">{{url}}</a></p>{{/editing}}
        <div class="{{#editing}}editor{{/editing}}"><div>
        <form method="post" action="{{#editing}}/console/links/edit{{/editing}}{{^editing}}/console/links/new{{/editing}}">
        <input type="hidden" name="csrf" value="{{csrf}}">
        {{#editing}}<input type="hidden" name="site" value="{{site}}"><input type="hidden" name="code" value="{{code}}">{{/editing}}
        {{^editing}}<label for="site">Site</label>
        <select id="site" name="site">{{#sites}}<option value="{{name}}"{{#selected}} selected{{/selected}}>{{name}}</option>{{/sites}}</select>{{/editing}}
        {{#fields}}{{#check}}<div class="check"><input id="{{name}}" name="{{name}}" type="checkbox" value="true"{{#checked}} checked{{/checked}} aria-describedby="{{name}}-hint{{#problem}} {{name}}-problem{{/problem}}"{{#problem}} aria-invalid="true"{{/problem}}> <label for="{{name}}">{{label}}</label></div>{{/check}}
        {{^check}}<label for="{{name}}">{{label}}</label>
        {{#long}}<textarea id="{{name}}" name="{{name}}" rows="3" aria-describedby="{{name}}-hint{{#problem}} {{name}}-problem{{/problem}}"{{#problem}} aria-invalid="true"{{/problem}}>{{value}}</textarea>{{/long}}{{^long}}<input id="{{name}}" name="{{name}}" type="text" value="{{value}}" aria-describedby="{{name}}-hint{{#problem}} {{name}}-problem{{/problem}}"{{#problem}} aria-invalid="true"{{/problem}}>{{/long}}{{/check}}
        {{#problem}}<p class="field-problem" id="{{name}}-problem">{{problem}}</p>{{/problem}}
        <p class="hint" id="{{name}}-hint">{{hint}}</p>
        {{/fields}}
        <button type="submit">{{#editing}}Save{{/editing}}{{^editing}}Create link{{/editing}}</button>
        </form>
        {{#editing}}<p><a class="danger" href="{{deleteURL}}">Delete this link…</a></p>{{/editing}}
        {{#qr}}<h2>QR code</h2>
        <figure class="qr">{{{qr}}}</figure>
        <p><a href="{{qrSVG}}" download>Download SVG</a> · <a href="{{qrPNG}}" download>Download PNG</a></p>{{/qr}}
        </div>
        {{#card}}<div><h2>Preview card</h2>
        <p class="hint">What a chat app shows when the link is shared (the og tags of the landing page).</p>
        <div class="card" id="preview-card">{{#image}}<img class="card-image" src="{{image}}" alt="">{{/image}}<p class="card-host">{{host}}</p><p class="card-title">{{title}}</p>{{#description}}<p class="card-description">{{description}}</p>{{/description}}</div>
        <h2>Landing page preview</h2>
        <p class="hint">The page this server answers for the link, rendered as each device would get it (saved changes show on reload).</p>
        <div class="devices">{{#devices}}<figure class="device {{id}}"><iframe id="preview-{{id}}" src="{{src}}" title="Landing page as {{name}} sees it" loading="lazy"></iframe><figcaption>{{name}}</figcaption></figure>{{/devices}}</div>
        </div>{{/card}}
        </div>
        </main>
        {{> end}}
        """

    static let deleteLink = """
        {{> begin}}
        <main class="narrow">
        <h1>Delete {{code}}?</h1>
        {{> flash}}
        <p><a href="{{url}}">{{url}}</a> leads to <span class="url">{{target}}</span>.</p>
        <p>Deleting it frees the code: the link answers 404 at once, and the code can be given to a new link. Its click counts stay. To stop it for now but keep it, disable it instead.</p>
        <form method="post" action="/console/links/delete">
        <input type="hidden" name="csrf" value="{{csrf}}"><input type="hidden" name="site" value="{{site}}"><input type="hidden" name="code" value="{{code}}">
        <input type="hidden" name="confirm" value="yes">
        <button type="submit" class="danger">Delete {{code}}</button>
        <a href="{{back}}">Cancel</a>
        </form>
        </main>
        {{> end}}
        """

    /// What a device gets when the public listener answers without a page (a redirect, a 404).
    static let previewAnswer = """
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <link rel="stylesheet" href="/console/console.css">
        <title>{{device}}: {{status}}</title>
        </head>
        <body class="preview-answer">
        <main><p><strong>{{device}}</strong> gets <strong>{{status}}</strong>{{#location}}: sent straight to <span class="url">{{location}}</span>{{/location}}.</p>
        <p>{{why}}</p></main>
        </body>
        </html>
        """

    static let linksStylesheet = """
        .visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
        .filter input[type=search] { width: auto; min-width: 12rem; }
        .filter { display: flex; flex-wrap: wrap; gap: .5rem; align-items: center; }
        form.bulk { display: flex; flex-wrap: wrap; gap: .5rem; align-items: center; margin: .5rem 0; }
        .actions { display: flex; flex-wrap: wrap; gap: .5rem; align-items: center; }
        a.danger, button.danger { color: var(--bad); font-weight: 600; }
        button.danger { background: var(--card); border-color: var(--bad); }
        svg.spark { vertical-align: middle; }
        svg.spark rect { fill: var(--accent); }
        .spark-cell { white-space: nowrap; }
        nav.pages { display: flex; gap: 1.5rem; margin: 1rem 0; }
        input[type=checkbox] { min-height: 0; width: 1.4rem; height: 1.4rem; }
        .check { display: flex; gap: .5rem; align-items: center; margin-top: .75rem; }
        .check label { margin: 0; }
        main.wide { max-width: 80rem; }
        .editor { display: grid; grid-template-columns: minmax(0, 28rem) minmax(0, 1fr); gap: 2rem; }
        @media (max-width: 56rem) { .editor { grid-template-columns: minmax(0, 1fr); } }
        .devices { display: flex; flex-wrap: wrap; gap: 1rem; }
        figure.device { margin: 0; }
        figure.device iframe { border: 1px solid var(--line); border-radius: 1rem; background: #fff; width: 240px; height: 430px; }
        figure.device.desktop iframe { width: 100%; min-width: 240px; max-width: 520px; height: 320px; border-radius: .4rem; }
        figure.device.desktop { flex: 1 1 100%; }
        .card-image { display: block; width: 100%; max-height: 12rem; object-fit: cover; border-radius: .5rem; margin-bottom: .4rem; }
        body.preview-answer main { padding: 1rem; }
        """

    /// The link pages that are not in `Compiled`, compiled once.
    struct LinkPages: Sendable {
        let deleteLink, previewAnswer: Template
    }

    static let linkPages = LinkPages(
        deleteLink: try! Template(name: "console/delete", source: deleteLink, mode: .html, partials: partials),
        previewAnswer: try! Template(name: "console/preview-answer", source: previewAnswer, mode: .html, partials: partials))
}
