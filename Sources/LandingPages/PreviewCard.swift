/// What a generated preview image shows: the app's icon and name, the route's title, on the
/// site's accent colour. Two cards with the same values are the same PNG.
public struct PreviewCard: Sendable, Hashable {
    public var site: String
    public var route: String
    /// The canonical link the card is for (lets a request for the image rebuild it).
    public var link: String
    public var appName: String
    public var title: String
    public var themeColor: String?
    /// `landing.icon` (or the first app's): a path under public/ or an https URL.
    public var icon: String?
    public var locale: String

    public static let width = 1200
    public static let height = 630

    public init(site: String, route: String, link: String, appName: String, title: String, themeColor: String?, icon: String?, locale: String) {
        self.site = site
        self.route = route
        self.link = link
        self.appName = appName
        self.title = title
        self.themeColor = themeColor
        self.icon = icon
        self.locale = locale
    }
}
