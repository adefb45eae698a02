import Cloud
import Foundation
import Logging
import NIOCore
import NIOPosix
import PostgresNIO

/// A few connections to one database, lent to one transaction at a time. The cloud's calls are synchronous (a
/// server runs them off its event loops), so a caller waits here for a free connection, then on each reply.
final class PostgresPool: @unchecked Sendable {
    let location: PostgresLocation
    let size: Int
    let logger: Logger
    private let group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton
    private let condition = NSCondition()
    private var idle: [PostgresConnection] = []
    private var open = 0
    private var nextID = 0

    init(location: PostgresLocation, size: Int, logger: Logger) {
        self.location = location
        self.size = size
        self.logger = logger
    }

    /// Runs `body` with a connection of the pool's own. A connection that failed is closed, not lent again.
    func with<T>(_ body: (PostgresConnection) throws -> T) throws -> T {
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

    private func borrow() throws -> PostgresConnection {
        condition.lock()
        while true {
            if let connection = idle.popLast() {
                condition.unlock()
                if connection.isClosed { return try replace() }  // the server went away while it was idle
                return connection
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
    private func replace() throws -> PostgresConnection {
        do {
            return try connect()
        } catch {
            condition.lock()
            open -= 1
            condition.signal()
            condition.unlock()
            throw error
        }
    }

    private func giveBack(_ connection: PostgresConnection) {
        condition.lock()
        if connection.isClosed {
            open -= 1
        } else {
            idle.append(connection)
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
        for connection in connections { try? connection.close().wait() }
    }
}
