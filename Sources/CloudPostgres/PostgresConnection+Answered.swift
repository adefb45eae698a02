import Cloud
import Logging
import NIOCore
import PostgresNIO

extension PostgresConnection {
    /// `query`, answered even if the connection closes as it is sent. postgres-nio hands a query to its channel
    /// without a promise of the write's, so a query that reaches a channel already closed (a backend the server
    /// ended, a server restarting, as the query went out) is dropped, and its answer never comes: a caller
    /// waiting for it would wait for ever. A check queued on the connection's loop after the query's write
    /// (the loop runs its tasks in order) fails it then; one the channel took is answered or failed by it.
    func queryAnswered(_ query: PostgresQuery, logger: Logger) -> EventLoopFuture<PostgresQueryResult> {
        let answer = self.query(query, logger: logger)
        let checked = answer.eventLoop.makePromise(of: PostgresQueryResult.self)
        answer.cascade(to: checked)  // first to complete it wins; the other is ignored
        answer.eventLoop.execute { [self] in
            if isClosed { checked.fail(CloudError.serviceUnavailable(retryAfter: 2)) }
        }
        return checked.futureResult
    }
}
