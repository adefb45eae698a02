import Cloud
import Foundation
import Logging
import NIOCore
import NIOPosix
import PostgresNIO

/// A few connections to one database, lent to one transaction at a time. The cloud's calls are synchronous (a
/// server runs them off its event loops), so a caller waits here for a free connection, then on each reply.
final class PostgresPool: @unchecked Sendable {
    /// A connection of the pool's, with what it has prepared (a prepared statement lives as long as its
    /// connection, and only there).
    final class Lent {
        let connection: PostgresConnection
        /// The names of the statements `PREPARE`d on this connection.
        var prepared: Set<String> = []

        init(_ connection: PostgresConnection) { self.connection = connection }
    }

    let location: PostgresLocation
    let size: Int
    let logger: Logger
    private let group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton
    private let condition = NSCondition()
    private var idle: [Lent] = []
    private var open = 0
    private var nextID = 0

    init(location: PostgresLocation, size: Int, logger: Logger) {
        self.location = location
        self.size = size
        self.logger = logger
    }

    /// Runs `body` with a connection of the pool's own. A connection that failed is closed, not lent again.
    func with<T>(_ body: (PostgresConnection) throws -> T) throws -> T {
        try lending { try body($0.connection) }
    }

    /// `with`, lending the connection with what it has prepared.
    func lending<T>(_ body: (Lent) throws -> T) throws -> T {
        let connection = try borrow()
        do {
            let result = try body(connection)
            giveBack(connection)
            return result
        } catch {
            giveBack(connection)
            throw error
        }
    }

    /// A new connection outside the pool (the push listener's).
    func connect() throws -> PostgresConnection {
        condition.lock()
        nextID += 1
        let id = nextID
        condition.unlock()
        return try PostgresConnection.connect(on: group.next(), configuration: try location.configuration, id: id, logger: logger).wait()
    }

    private func borrow() throws -> Lent {
        condition.lock()
        while true {
            if let lent = idle.popLast() {
                condition.unlock()
                if lent.connection.isClosed { return try replace() }  // the server went away while it was idle
                return lent
            }
            if open < size {
                open += 1
                condition.unlock()
                return try replace()
            }
            condition.wait()
        }
    }

    /// A fresh connection in place of one the pool counts as open; on failure the place is given up.
    private func replace() throws -> Lent {
        do {
            return Lent(try connect())
        } catch {
            condition.lock()
            open -= 1
            condition.signal()
            condition.unlock()
            throw error
        }
    }

    private func giveBack(_ lent: Lent) {
        condition.lock()
        if lent.connection.isClosed {
            open -= 1
        } else {
            idle.append(lent)
        }
        condition.signal()
        condition.unlock()
    }

    deinit { close() }

    /// Closes the idle connections (a connection must be closed before it is dropped).
    func close() {
        condition.lock()
        let connections = idle
        idle = []
        open -= connections.count
        condition.unlock()
        // (Shutting down: a connection that fails to close has nothing left to lose.)
        for lent in connections { try? lent.connection.close().wait() }
    }
}
