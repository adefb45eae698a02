import Cloud
import Foundation

/// The next page of a zone's changes, asked for as soon as the page before it names its token, while the sync
/// core applies that page: the server's work and this device's then run side by side, not one after the other.
/// It is handed over only to the request it answers (same database, zone, token, limit and known records); a
/// different request, or a read-ahead that failed, leaves it unused and the request goes out as usual. A fetch
/// that asks for the database's changes drops it: a page from before that answer could miss a change the answer
/// covers (after a fetch cut short, say), and the sync core would then take the change as seen.
final class PageReadAhead<Answer>: @unchecked Sendable {
    struct Request: Hashable {
        var scope: DatabaseScope
        var zone: ZoneID
        var token: ChangeToken?
        var limit: Int?
        var known: [String: String]
    }

    private final class Page: @unchecked Sendable {
        let request: Request
        let done = DispatchSemaphore(value: 0)
        var result: Result<Answer, CloudError>?
        init(_ request: Request) { self.request = request }
    }

    private let lock = NSLock()
    private var page: Page?
    private let queue = DispatchQueue(label: "cloudnotes.client.read-ahead")

    /// Starts fetching `request` with `fetch` in the background (dropping any page read ahead before).
    func start(_ request: Request, _ fetch: @escaping @Sendable (Request) throws(CloudError) -> Answer) {
        let page = Page(request)
        lock.withLock { self.page = page }
        queue.async {
            page.result = Result { () throws(CloudError) in try fetch(request) }
            page.done.signal()
        }
    }

    /// Forgets any page read ahead.
    func drop() { lock.withLock { page = nil } }

    /// The page read ahead for `request`, once it has arrived; nil when none was, or it failed.
    func take(_ request: Request) -> Answer? {
        let page: Page? = lock.withLock {
            defer { self.page = nil }
            return self.page?.request == request ? self.page : nil
        }
        guard let page else { return nil }
        page.done.wait()
        return try? page.result?.get()
    }
}
