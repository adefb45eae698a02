import Foundation

/// The cloud kept in one directory, shared by every process on the machine
/// that opens the same directory: the embedded default, and what a server
/// serves. It makes and checks every request itself. Its state is the SQLite
/// file in the directory, or another `CloudStorage` (PostgreSQL, which
/// several servers share); the directory then keeps only this machine's
/// fault plan and high-water mark.
///
/// A `LocalCloud` is the connection; `database(_:as:)` gives an account's
/// view of one database, through which every request is made and checked.
///
///     let cloud = try LocalCloud(directory: dir)
///     let heather = try cloud.createAccount(name: "heather")
///     let db = cloud.database(.private, as: heather)
///     try db.save(zone: ZoneID(name: "Notes"))
public final class LocalCloud: PushSource, Sendable {
    public static let defaultContainer = "iCloud.cloudnotes"
    public static let fileName = "cloud.sqlite"

    /// The SQLite file of the cloud in `directory` as a store of its own (to copy it elsewhere, say).
    public static func fileStorage(in directory: URL) throws(CloudError) -> any CloudStorage {
        try SQLiteStorage(path: directory.appendingPathComponent(fileName).path, notifyDirectory: directory.appendingPathComponent("notify"))
    }

    public let directory: URL
    public let container: String
    public let limits: CloudLimits
    let storage: any CloudStorage
    let clock: any CloudClock
    let random: any RandomSource
    let faults: FaultSwitch
    let highWater: HighWaterMark
    /// When this process's writes last dropped the signatures of requests past their time.
    let signaturePruning = SignedRequestTable.Pruning()

    /// Opens (creating if needed) the cloud kept in `directory`.
    ///
    /// - Parameters:
    ///   - storage: where the state is kept; nil for the SQLite file in `directory`.
    ///   - faults: a fixed fault plan; nil reads `CLOUDNOTES_FAULTS` from
    ///     `environment`, then the directory's `faults.json` on each request.
    public init(
        directory: URL,
        storage: (any CloudStorage)? = nil,
        container: String = LocalCloud.defaultContainer,
        clock: any CloudClock = SystemClock(),
        random: any RandomSource = SystemRandom(),
        limits: CloudLimits = CloudLimits(),
        faults: FaultPlan? = nil,
        highWaterMirror: URL? = nil,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws(CloudError) {
        self.directory = directory
        self.container = container
        self.clock = clock
        self.random = random
        self.limits = limits
        let notifyDirectory = directory.appendingPathComponent("notify")
        do {
            try FileManager.default.createDirectory(
                at: notifyDirectory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw .storage("cannot use cloud directory \(directory.path): \(error.localizedDescription)")
        }
        guard access(directory.path, R_OK | W_OK | X_OK) == 0 else {
            throw .storage("cannot use cloud directory \(directory.path): permission denied")
        }
        var plan = faults
        if plan == nil, let text = environment[FaultSwitch.environmentKey] {
            plan = try FaultPlan(parsing: text)
        }
        self.faults = FaultSwitch(directory: directory, override: plan)
        self.highWater = HighWaterMark(path: directory.appendingPathComponent("high-water").path, ownsUnnamedMark: storage == nil,
                                       mirror: highWaterMirror?.path)
        let store: any CloudStorage
        if let storage {
            store = storage
        } else {
            store = try SQLiteStorage(path: directory.appendingPathComponent(Self.fileName).path, notifyDirectory: notifyDirectory)
        }
        self.storage = store
        let mark = highWater.read()
        // Read first: a cloud that has its identity and did not go back opens without a write, so a role that
        // may only read opens it, and a file whose cloud moved opens to be read (its writes are refused).
        let current = try store.lookUp { db in try Self.readIdentity(db) }
        if let id = current.id, !id.isEmpty, current.sequence >= mark?.bound(for: id) ?? 0 { return }
        try store.write { [random, clock] db in try Self.recoverIfRestored(db, highWater: mark, random: random, clock: clock) }
    }

    /// Where the cloud moved (`cloudnotes cloud migrate`), when this is its file and it moved: it takes no write.
    public var movedTo: String? {
        get throws(CloudError) { try StorageCopy.destination(of: storage) }
    }

    /// One account's view of one database, as this cloud serves it.
    func local(_ database: CloudDatabase) -> LocalDatabase {
        LocalDatabase(cloud: self, scope: database.scope, caller: database.caller)
    }

    /// Calls `handler` shortly after any request changes what a topic covers.
    public func subscribe(to topics: Set<PushTopic>, handler: @escaping @Sendable (Push) -> Void) -> any PushWatch {
        storage.subscribe(to: topics, handler: handler)
    }

    /// Calls `handler` after any request, for every topic it posts to (a server relays them to its clients).
    public func subscribeToEveryTopic(handler: @escaping @Sendable (Push) -> Void) -> any PushWatch {
        storage.subscribe(to: nil, handler: handler)
    }

    /// The last commit posted to each topic (0 for one never posted to), so a client that polls can be told
    /// at once of what it missed.
    public func lastPushes(to topics: Set<PushTopic>) throws(CloudError) -> [PushTopic: Int64] {
        try storage.read { db in try TopicTable.last(db, topics) }
    }

    /// Where the cloud's state is: its file's path, or its database's URL (without a password).
    public var storageLocation: String { storage is SQLiteStorage ? directory.path : storage.location }

    /// The fault plan in force for this connection.
    public var faultPlan: FaultPlan { faults.current }

    /// Why the directory's `faults.json` cannot be read (it is then ignored), if it cannot.
    public var faultPlanProblem: String? { faults.problem }

    /// Where a user's processes keep a copy of the high-water marks of the clouds they write (`HighWaterMark.mirror`):
    /// `$XDG_STATE_HOME/cloudnotes/high-water`, else under `~/.local/state`; nil with neither set.
    public static func highWaterMirror(environment: [String: String] = ProcessInfo.processInfo.environment) -> URL? {
        let state = environment["XDG_STATE_HOME"].flatMap { $0.isEmpty ? nil : URL(fileURLWithPath: $0) }
            ?? environment["HOME"].flatMap { $0.isEmpty ? nil : URL(fileURLWithPath: $0).appendingPathComponent(".local/state") }
        return state?.appendingPathComponent("cloudnotes/high-water")
    }

    /// Why the high-water mark cannot guard this cloud against its store going back, if it cannot.
    public var highWaterProblem: String? { highWater.problem }

    /// Sets the plan every process reading this directory's `faults.json` obeys.
    public func setFaultPlan(_ plan: FaultPlan) throws(CloudError) {
        try FaultSwitch.write(plan, to: directory)
    }

    // MARK: Requests

    /// Runs one client request through the fault switch, then as one
    /// transaction, then posts to the topics it touched.
    ///
    /// A network failure drawn by the fault switch strikes, half the time,
    /// after the commit: the change is made but its response is lost, as on
    /// a real network, and a client must cope.
    func perform<T>(_ body: (inout Request) throws -> T) throws(CloudError) -> T {
        try performCommitting(body).result
    }

    /// `perform`, also returning what the commit posted to each topic (see `Committed`).
    func performCommitting<T>(_ body: (inout Request) throws -> T) throws(CloudError) -> (result: T, commit: Committed) {
        if let fault = faults.current.draw(random) {
            if fault == .networkFailure, random.below(2) == 0 { _ = try commit(body) }
            throw fault
        }
        return try commit(body)
    }

    /// Runs one read-only client request through the fault switch.
    func performRead<T>(_ body: (any SQLTransaction) throws -> T) throws(CloudError) -> T {
        try ServedRequest.checkContinue()
        if let fault = faults.current.draw(random) { throw fault }
        guard let served = ServedRequest.current else { return try storage.read(body) }
        return try storage.read { db in
            let identity = try db.ask(Self.identityQuery, [])
            let result = try body(db)
            if let row = try identity.rows().first, case let (id?, sequence) = Self.identity(from: row) {
                served.saw(CloudIdentity(id: id, sequence: sequence))
            }
            return result
        }
    }

    /// `performRead` for a read of changes, whose body is also given its snapshot's sequence (the "now" its
    /// token is checked against and moves to): read in the statement that asks the cloud's identity for the
    /// answer, so one statement and one round trip, not two.
    func performRead<T>(atSequence body: (any SQLTransaction, _ now: Int64) throws -> T) throws(CloudError) -> T {
        try ServedRequest.checkContinue()
        if let fault = faults.current.draw(random) { throw fault }
        return try storage.read { db in
            let (id, now) = try Self.readIdentity(db)
            let result = try body(db, now)
            if let id { ServedRequest.current?.saw(CloudIdentity(id: id, sequence: now)) }
            return result
        }
    }

    private func commit<T>(_ body: (inout Request) throws -> T) throws(CloudError) -> (result: T, commit: Committed) {
        var committing: (() throws -> Committed)?
        let mark = highWater.read()
        let served = ServedRequest.current
        var cloudID = ""
        let result = try writeRecordingSignature { db in
            // A file put back to an older state gets a new identity before anything is written over it.
            let identity = try Self.recoverIfRestored(db, highWater: mark, random: random, clock: clock)
            cloudID = identity.id
            var request = Request(db: db, now: clock.now(), sequence: identity.sequence)
            let result = try body(&request)
            committing = try request.finish()
            return result
        }
        let committed = try wrapStorage { try committing!() }
        served?.saw(CloudIdentity(id: cloudID, sequence: committed.sequence))
        if mark?.moved(by: committed.sequence, of: cloudID) ?? true { highWater.raise(to: committed.sequence, of: cloudID) }
        if !committed.previous.isEmpty { storage.post(Set(committed.previous.keys), sequence: committed.sequence) }
        return (result, committed)
    }
}

extension LocalCloud {
    /// `storage.write`, recording in the same transaction the signature of the request being served on this
    /// thread (if it has one not yet recorded): a signature any server of the cloud recorded before is a
    /// replay, refused, and the transaction rolled back.
    func writeRecordingSignature<T>(_ body: (any SQLTransaction) throws -> T) throws(CloudError) -> T {
        let served = ServedRequest.current
        let signature = served?.unrecordedSignature
        var isNew: (() throws -> Bool)?
        let result = try storage.write(unlocked: { db in
            // Before the lock: a replay's copy waits on this row, and the lock is held a round trip less.
            isNew = try signature.map { try SignedRequestTable.record(db, $0) }
        }) { db in
            let result = try body(db)
            // After the body, which reads the identity the lock read first; sent with the commit.
            if signature != nil { try SignedRequestTable.prune(db, now: clock.now(), pruning: signaturePruning) }
            if let isNew, try !isNew() {
                throw CloudError.notAuthenticated("this signed request was already answered by a server of this cloud (a replay)")
            }
            return result
        }
        if signature != nil { served?.signatureRecorded() }
        return result
    }

    /// Records the signature of the request being served on this thread, for one that writes nothing but hands
    /// out what a replay must not get again (a notification token); refuses a replay.
    public func recordServedSignature() throws(CloudError) {
        guard ServedRequest.current?.unrecordedSignature != nil else { return }  // a web token's: nothing to record
        try writeRecordingSignature { _ in }
    }
}

/// A write request as committed: its last sequence number, and for each topic it posted to, the commit posted
/// there before it.
struct Committed {
    let sequence: Int64
    let previous: [PushTopic: Int64]

    /// What the caller of a database hears: the commit as its own database's topic saw it (nil when the
    /// request did not change that database).
    func seen(by database: LocalDatabase) -> Commit? {
        previous[database.pushTopic].map { Commit(sequence: sequence, previous: $0) }
    }
}

/// The state of one write request while its transaction is open.
struct Request {
    let db: any SQLTransaction
    let now: Date
    /// The last change sequence number handed out.
    private(set) var sequence: Int64
    private let startSequence: Int64
    /// Who must hear of this request once it commits.
    var topics: Set<PushTopic> = []

    /// `sequence`: the last change sequence number handed out, as the store holds it now.
    init(db: any SQLTransaction, now: Date, sequence: Int64) {
        self.db = db
        // As the file keeps times (seconds since 1970, a REAL): a save returns the record a fetch reads back.
        self.now = Date(timeIntervalSince1970: now.timeIntervalSince1970)
        self.sequence = sequence
        startSequence = sequence
    }

    /// A new change sequence number; every changed item gets its own.
    mutating func nextSequence() -> Int64 {
        sequence += 1
        return sequence
    }

    /// Writes the sequence number reached and moves each topic told to it; what the request committed is known
    /// once the transaction has (the returned closure, called after the commit).
    func finish() throws -> () throws -> Committed {
        if sequence != startSequence {
            try db.send("UPDATE sequence SET value = ? WHERE id = 1", [sequence])
        }
        let sequence = sequence
        guard !topics.isEmpty else { return { Committed(sequence: sequence, previous: [:]) } }
        let previous = try TopicTable.advance(db, topics, to: sequence, unknown: startSequence)
        return { Committed(sequence: sequence, previous: try previous()) }
    }
}
