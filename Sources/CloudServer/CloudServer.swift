import Cloud
import CloudWire
import Foundation
import Hummingbird
import HummingbirdCore
import HummingbirdTLS
import Logging
import NIOCore
import NIOPosix
import ServiceLifecycle

/// `cloudnotes cloud serve`: the cloud in a directory over HTTP, in CloudKit Web Services' protocol
/// (docs/PROTOCOL.md). Every request but `/healthz` and a device's enrolment is signed by an enrolled device
/// (or carries a web token pair); the database work runs on its own threads, never the event loops, so one slow
/// request holds up no other. SIGINT and SIGTERM stop it gracefully.
public struct CloudServer: Sendable {
    public struct Configuration: Sendable {
        public var host: String
        /// 0 picks a free port (printed once listening).
        public var port: Int
        public var tlsCertificate: String?
        public var tlsKey: String?
        /// Request bodies larger are refused with LIMIT_EXCEEDED.
        public var maxBodyBytes = 2 * 1024 * 1024
        /// How long a long poll waits before an empty answer.
        public var pollTimeout: TimeInterval = 25
        /// Requests a second per account, on average, and the burst allowed (a sync round is about eight).
        public var rate: Double = 200
        public var burst: Double = 400
        /// Enrolments (unsigned) a second per address, on average, and the burst allowed (a lab enrolling a
        /// hundred devices at once fits).
        public var enrolmentRate: Double = 5
        public var enrolmentBurst: Double = 100
        /// Threads the cloud's calls run on, each blocking while its storage answers (SQLite's lock,
        /// PostgreSQL's round trips): requests past these wait their turn. Reads have `workThreads`; the
        /// operations that write have `writeThreads` of their own, so saves waiting for the writers' lock never
        /// hold the threads fetches need. A request is authenticated and limited on its operation's threads.
        public var workThreads = 16
        public var writeThreads = 8
        /// A connection with no request under way, or whose request's head has not all arrived, is closed after this.
        public var idleTimeout: TimeInterval = 15
        /// A request's body must arrive within this of its head; an answer must be taken within `writeTimeout`.
        public var bodyTimeout: TimeInterval = 30
        public var writeTimeout: TimeInterval = 60
        /// The work of one request stops past this (LIMIT_EXCEEDED), and as soon as its client hangs up.
        public var requestTimeout: TimeInterval = 20
        /// Connections open at once; past it, new ones wait in the listening socket's backlog.
        public var maxConnections = 4096
        /// Requests of one account being worked on at once: reads, writes, and queries (the costliest reads) among
        /// the reads. Past them, THROTTLED at once: one account's load holds at most these of the server's threads.
        public var inFlightReads = 8
        public var inFlightWrites = 8
        public var inFlightQueries = 1
        /// The share of one processor an account's long requests may take, sustained: a request's processor time
        /// past `freeWork` costs its account `rate / workShare` requests' worth a second of it, so a flood of costly
        /// queries runs at a trickle while a device's sync (each request a few milliseconds) costs what it always
        /// did. Waits (for the writers' lock, for PostgreSQL) are not work, and cost nothing.
        public var workShare = 0.1
        public var freeWork: TimeInterval = 0.05

        public init(host: String, port: Int, tlsCertificate: String? = nil, tlsKey: String? = nil) {
            self.host = host
            self.port = port
            self.tlsCertificate = tlsCertificate
            self.tlsKey = tlsKey
        }
    }

    public let cloud: LocalCloud
    public let configuration: Configuration
    private let logger: Logger

    public init(cloud: LocalCloud, configuration: Configuration, logger: Logger = Logger(label: "cloudnotes.server")) {
        self.cloud = cloud
        self.configuration = configuration
        self.logger = logger
    }

    /// Serves until SIGINT or SIGTERM; `listening` hears the address once the socket is bound.
    public func run(listening: @escaping @Sendable (String) -> Void = { _ in }) async throws {
        let hub = PushHub(cloud: cloud, random: SystemRandom())
        let work = NIOThreadPool(numberOfThreads: configuration.workThreads)
        let writes = NIOThreadPool(numberOfThreads: configuration.writeThreads)
        work.start()
        writes.start()
        let handler = RequestHandler(cloud: cloud, configuration: configuration, hub: hub, work: work, writes: writes, logger: logger)
        let responder = CallbackResponder<PeerContext> { request, context in
            await handler.respond(to: request, from: context.peer, connection: context.connection)
        }
        let scheme = configuration.tlsCertificate == nil ? "http" : "https"
        let (body, write) = (configuration.bodyTimeout, configuration.writeTimeout)
        let http1 = HTTP1Channel.Configuration(
            additionalChannelHandlers: [ConnectionGuard(bodyTimeout: .interval(body), writeTimeout: .interval(write))],
            idleTimeout: .interval(configuration.idleTimeout),
            httpDecoderConfiguration: .init(maxHeaderFieldSize: 16 * 1024, maxHeaderListSize: 64 * 1024, maxHeaderFieldCount: 100))
        var server: HTTPServerBuilder = .http1(configuration: http1)
        if let certificate = configuration.tlsCertificate, let key = configuration.tlsKey {
            let tls = TLSConfiguration.makeServerConfiguration(
                certificateChain: try NIOSSLCertificate.fromPEMFile(certificate).map { .certificate($0) },
                privateKey: .privateKey(try NIOSSLPrivateKey(file: key, format: .pem)))
            server = try .tls(.http1(configuration: http1), tlsConfiguration: tls)
        }
        let app = Application(
            responder: responder, server: server,
            configuration: ApplicationConfiguration(address: .hostname(configuration.host, port: configuration.port), serverName: "cloudnotes",
                                                    availableConnectionsDelegate: MaximumAvailableConnections(configuration.maxConnections)),
            onServerRunning: { channel in
                let port = channel.localAddress?.port ?? configuration.port
                handler.baseURL = "\(scheme)://\(configuration.host):\(port)"
                listening("\(configuration.host):\(port)")
            },
            logger: logger)
        // Services stop in reverse order: the hub first, answering open polls, so the server's graceful
        // shutdown waits for no poll's timeout.
        let group = ServiceGroup(configuration: .init(services: [app, hub], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
        do {
            try await group.run()
        } catch {
            // (Already failing: the error thrown below is what the operator hears.)
            try? await work.shutdownGracefully()
            try? await writes.shutdownGracefully()
            throw error
        }
        try await work.shutdownGracefully()
        try await writes.shutdownGracefully()
    }
}

/// A request's context: Hummingbird's, the address that connected (the unsigned operations are limited by it), and
/// its connection's state (whether the client is still there).
struct PeerContext: RequestContext {
    var coreContext: CoreRequestContextStorage
    let peer: String
    let connection: ConnectionState?

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        peer = source.channel.remoteAddress?.ipAddress ?? "unknown"
        connection = ConnectionState.registry.state(of: source.channel)
    }
}

extension TimeAmount {
    static func interval(_ seconds: TimeInterval) -> TimeAmount { .nanoseconds(Int64(seconds * 1e9)) }
}
