import Foundation
import NIOCore
import NIOHTTPTypes

/// One connection's watch, in its pipeline after the HTTP decoder: a request's body must arrive within `bodyTimeout`
/// of its head (a client trickling it holds a connection and a buffer for no one), an answer must be taken within
/// `writeTimeout` (a client that never reads holds the answer's memory), and when the client hangs up its requests'
/// work stops (`ConnectionState.left`, which the request handler hands to `ServedRequest`). A half-sent head is the
/// idle timeout's (Hummingbird's, which runs until a whole head is read).
final class ConnectionGuard: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private let bodyTimeout: TimeAmount
    private let writeTimeout: TimeAmount
    private let state = ConnectionState()
    private var bodyDeadline: Scheduled<Void>?
    private var writeDeadline: Scheduled<Void>?

    init(bodyTimeout: TimeAmount, writeTimeout: TimeAmount) {
        self.bodyTimeout = bodyTimeout
        self.writeTimeout = writeTimeout
    }

    func handlerAdded(context: ChannelHandlerContext) { ConnectionState.registry.add(state, for: context.channel) }

    func handlerRemoved(context: ChannelHandlerContext) {
        state.markLeft()
        ConnectionState.registry.remove(context.channel)
        bodyDeadline?.cancel()
        writeDeadline?.cancel()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head:
            bodyDeadline = context.eventLoop.assumeIsolated().scheduleTask(in: bodyTimeout) { context.close(promise: nil) }
        case .end:
            bodyDeadline?.cancel()
            bodyDeadline = nil
        case .body:
            break
        }
        context.fireChannelRead(data)
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let event = event as? ChannelEvent, event == .inputClosed { state.markLeft() }
        context.fireUserInboundEventTriggered(event)
    }

    func channelInactive(context: ChannelHandlerContext) {
        state.markLeft()
        context.fireChannelInactive()
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch unwrapOutboundIn(data) {
        case .head:
            writeDeadline = context.eventLoop.assumeIsolated().scheduleTask(in: writeTimeout) { context.close(promise: nil) }
            context.write(data, promise: promise)
        case .end:
            let written = promise ?? context.eventLoop.makePromise()
            written.futureResult.hop(to: context.eventLoop).assumeIsolated().whenComplete { [weak self] _ in
                self?.writeDeadline?.cancel()
                self?.writeDeadline = nil
            }
            context.write(data, promise: written)
        case .body:
            context.write(data, promise: promise)
        }
    }
}

/// Whether a connection's client has left; read by the work of its requests.
final class ConnectionState: @unchecked Sendable {
    private let lock = NSLock()
    private var left = false

    var hasLeft: Bool { lock.withLock { left } }
    func markLeft() { lock.withLock { left = true } }

    /// The live connections' states, by channel: how a request finds its connection's.
    static let registry = Registry()

    final class Registry: @unchecked Sendable {
        private let lock = NSLock()
        private var states: [ObjectIdentifier: ConnectionState] = [:]

        func add(_ state: ConnectionState, for channel: any Channel) { lock.withLock { states[ObjectIdentifier(channel)] = state } }
        func remove(_ channel: any Channel) { lock.withLock { states[ObjectIdentifier(channel)] = nil } }
        func state(of channel: any Channel) -> ConnectionState? { lock.withLock { states[ObjectIdentifier(channel)] } }
    }
}

/// Requests of one account the server is working on, by kind: past `limit`, another is refused at once with
/// THROTTLED (not queued behind its own), so one account's load holds at most that many of the server's threads.
final class InFlight: @unchecked Sendable {
    private let limit: Int
    private let lock = NSLock()
    private var counts: [String: Int] = [:]

    init(limit: Int) { self.limit = limit }

    /// Counts a request in; false (and nothing counted) when the account is at its limit.
    func enter(_ account: String) -> Bool {
        lock.withLock {
            guard counts[account, default: 0] < limit else { return false }
            counts[account, default: 0] += 1
            return true
        }
    }

    func leave(_ account: String) {
        lock.withLock {
            let left = counts[account, default: 1] - 1
            counts[account] = left > 0 ? left : nil
        }
    }
}
