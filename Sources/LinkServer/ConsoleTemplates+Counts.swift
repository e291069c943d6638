// The console's counts page: the filter (site, route, link, 7/30/90 days or a custom range), the
// funnel, clicks per day stacked by platform as a server-drawn SVG with the same numbers in a
// table, then the splits and the top lists (links, routes, referrers).

extension ConsoleTemplates {
    static let stats = """
        {{> begin}}
        <main>
        <h1>Counts</h1>
        {{> flash}}
        <form class="filter" method="get" action="/console/stats">
        <label for="site">Site</label>
        <select id="site" name="site">{{#sites}}<option value="{{name}}"{{#selected}} selected{{/selected}}>{{name}}</option>{{/sites}}</select>
        <label for="route">Route</label>
        <select id="route" name="route"><option value="">every route</option>{{#routeChoices}}<option value="{{name}}"{{#selected}} selected{{/selected}}>{{name}}</option>{{/routeChoices}}</select>
        <label for="link">Link code</label><input id="link" name="link" type="text" value="{{link}}" size="10">
        <label for="range">Last</label>
        <select id="range" name="range">{{#ranges}}<option value="{{days}}"{{#selected}} selected{{/selected}}>{{days}} days</option>{{/ranges}}</select>
        <label for="since">or from</label><input id="since" name="since" type="date" value="{{customSince}}">
        <label for="until">to</label><input id="until" name="until" type="date" value="{{customUntil}}">
        <button type="submit">Show</button>
        </form>
        <p class="totals" id="totals">{{countsScope}}, {{since}} to {{until}} (UTC): <strong id="total">{{total}}</strong> clicks, {{humans}} by people, {{crawlers}} by crawlers.</p>
        <div class="table-wrap"><table id="funnel"><caption>Funnel: clicks → app opens → first opens</caption>
        <thead><tr><th scope="col">Step</th><th scope="col">Count</th><th scope="col">Of the clicks</th></tr></thead>
        <tbody>{{#funnel}}<tr><td data-label="Step">{{name}}</td><td data-label="Count" id="funnel-{{id}}">{{count}}</td><td data-label="Share">{{share}}</td></tr>{{/funnel}}</tbody></table></div>
        <figure class="chart">{{{chart}}}
        <figcaption><ul class="legend">{{#legend}}<li><span class="swatch p-{{name}}"></span>{{label}}</li>{{/legend}}</ul>
        Clicks per day by platform; the table below has the same numbers.</figcaption></figure>
        <div class="table-wrap"><table id="days">
        <caption>Clicks per day by platform</caption>
        <thead><tr><th scope="col">Day (UTC)</th><th scope="col">Clicks</th><th scope="col">iOS</th><th scope="col">Android</th><th scope="col">Desktop</th><th scope="col">Other</th></tr></thead>
        <tbody>{{#days}}<tr><td data-label="Day">{{day}}</td><td data-label="Clicks">{{clicks}}</td><td data-label="iOS">{{ios}}</td><td data-label="Android">{{android}}</td><td data-label="Desktop">{{desktop}}</td><td data-label="Other">{{other}}</td></tr>{{/days}}</tbody>
        <tfoot><tr><th scope="row">Total</th><td id="days-total">{{total}}</td>{{#platformTotals}}<td id="days-{{name}}">{{clicks}}</td>{{/platformTotals}}</tr></tfoot>
        </table></div>
        <div class="grid">
        <div class="table-wrap"><table id="platforms"><caption>By platform</caption>
        <thead><tr><th scope="col">Platform</th><th scope="col">Clicks</th></tr></thead>
        <tbody>{{#platforms}}<tr><td data-label="Platform">{{name}}</td><td data-label="Clicks">{{clicks}}</td></tr>{{/platforms}}</tbody></table></div>
        <div class="table-wrap"><table id="outcomes"><caption>By outcome</caption>
        <thead><tr><th scope="col">Outcome</th><th scope="col">Clicks</th></tr></thead>
        <tbody>{{#outcomes}}<tr><td data-label="Outcome">{{name}}</td><td data-label="Clicks">{{clicks}}</td></tr>{{/outcomes}}</tbody></table></div>
        {{#hasLinks}}<div class="table-wrap"><table id="top-links"><caption>Top links</caption>
        <thead><tr><th scope="col">Link (route)</th><th scope="col">Clicks</th></tr></thead>
        <tbody>{{#links}}<tr><td data-label="Link">{{name}}</td><td data-label="Clicks">{{clicks}}</td></tr>{{/links}}</tbody></table></div>{{/hasLinks}}
        {{#hasRoutes}}<div class="table-wrap"><table id="top-routes"><caption>Top routes</caption>
        <thead><tr><th scope="col">Route</th><th scope="col">Clicks</th></tr></thead>
        <tbody>{{#topRoutes}}<tr><td data-label="Route">{{name}}</td><td data-label="Clicks">{{clicks}}</td></tr>{{/topRoutes}}</tbody></table></div>{{/hasRoutes}}
        {{#hasReferrers}}<div class="table-wrap"><table id="referrers"><caption>Top referrers</caption>
        <thead><tr><th scope="col">Referrer</th><th scope="col">Clicks</th></tr></thead>
        <tbody>{{#referrers}}<tr><td data-label="Referrer">{{name}}</td><td data-label="Clicks">{{clicks}}</td></tr>{{/referrers}}</tbody></table></div>{{/hasReferrers}}
        </div>
        </main>
        {{> end}}
        """

    /// Additions to ``stylesheet``: one colour per platform (the counts chart, its legend), and
    /// the routes page's offline check results.
    static let countsStylesheet = """
        svg.chart .p-ios, .swatch.p-ios { fill: #3b4cca; background: #3b4cca; }
        svg.chart .p-android, .swatch.p-android { fill: #2e7d32; background: #2e7d32; }
        svg.chart .p-desktop, .swatch.p-desktop { fill: #b45309; background: #b45309; }
        svg.chart .p-other, .swatch.p-other { fill: #6b6b73; background: #6b6b73; }
        ul.legend { list-style: none; padding: 0; margin: .25rem 0; display: flex; flex-wrap: wrap; gap: .25rem 1rem; }
        ul.checks { padding-left: 1.1rem; overflow-wrap: anywhere; }
        ul.checks li.pass strong { color: var(--good); }
        ul.checks li.warn strong, ul.checks li.fail strong { color: var(--bad); }
        .swatch { display: inline-block; width: .9rem; height: .9rem; border-radius: .15rem; margin-right: .35rem; vertical-align: -.1rem; }

        """
}
