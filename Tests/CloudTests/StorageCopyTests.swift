@testable import Cloud
import CloudPostgres
import Foundation
import GRDB
import Synchronization
import Testing
import TestSupport

/// `cloud migrate`'s copy moves a table in runs as it reads it: a table of many runs arrives whole, each row once.
@Suite(.enabled(if: TestStore.isPostgres, "the PostgreSQL run's (CLOUDNOTES_TEST_STORE=postgresql)"))
struct StorageCopyTests {
    @Test func aTableOfManyRunsIsCopiedWholeRowForRow() throws {
        let (directory, file, heather) = try Self.heathersFile("copied")
        let notes = ZoneID(name: "Notes", owner: heather.id)
        let database = try file.database(.private, as: heather)
        _ = try database.save(zone: notes)
        // 1,000 records of 12 columns: a run is 333 rows, so three full runs and a last one of one.
        for batch in 0..<5 {
            _ = try database.modifyRecords(saving: (0..<200).map { Record.make("p\(batch)-\($0)", in: notes) })
        }

        let url = try #require(try TestStore.database(for: TemporaryDirectory("target").url))
        let source = try LocalCloud.fileStorage(in: directory.url), target = try PostgresStorage(url: url)
        let report = try StorageCopy.copy(from: source, to: target)
        #expect(report.rows.first { $0.table == "records" }?.count == 1_000)
        let rows = "SELECT zone, name, change_tag, seq FROM records ORDER BY zone, name"
        func read(_ storage: any CloudStorage) throws -> [String] {
            try storage.read { db in try db.all(rows) { row in "\(row.int64(0)) \(row.text(1)) \(row.text(2)) \(row.int64(3))" } }
        }
        let copied = try read(target)
        #expect(copied.count == report.rows.first { $0.table == "records" }?.count)
        #expect(copied == (try read(source)))
    }

    /// A retired file refuses every write by a trigger on each table, so that a program from before `retire`,
    /// which takes the version that marks it for a newer schema's and checks nothing, is refused too, saying
    /// where the cloud went; reads go on.
    @Test func aRetiredFileRefusesWritesEvenFromAProgramThatDoesNotKnowTheMark() throws {
        let (directory, file, _) = try Self.heathersFile("retired")
        let url = try #require(try TestStore.database(for: TemporaryDirectory("target").url))
        let source = try #require(try LocalCloud.fileStorage(in: directory.url) as? SQLiteStorage)
        _ = try StorageCopy.copy(from: source, to: try PostgresStorage(url: url), retiredAt: Date())
        for statement in ["UPDATE sequence SET value = value + 1", "DELETE FROM accounts",
                          "INSERT INTO signed_requests(signature, until) VALUES ('s', 0)"] {
            do {
                try source.queue.write { db in try db.execute(sql: statement) }  // as such a program writes
                Issue.record("\(statement) went through")
            } catch {
                #expect("\(error)".contains("this cloud moved to \(try PostgresLocation(parsing: url))"), "\(error)")
            }
        }
        #expect(try file.accounts().map(\.name) == ["heather"], "read as it moved")
    }

    /// A file that cannot be marked as moved is not copied, and serves on: were it copied, the writes it took
    /// after would be lost on the switch, unseen.
    @Test func aFileThatCannotBeMarkedIsNotCopied() throws {
        let (directory, file, _) = try Self.heathersFile("unmarked")
        let source = try #require(try LocalCloud.fileStorage(in: directory.url) as? SQLiteStorage)
        try source.queue.write { db in try db.execute(sql: "CREATE TABLE moved_to(x)") }  // the mark's table taken: marking fails
        let url = try #require(try TestStore.database(for: TemporaryDirectory("target").url))
        let failure = #expect(throws: CloudError.self) { _ = try StorageCopy.copy(from: source, to: try PostgresStorage(url: url), retiredAt: Date()) }
        #expect(failure.map { "\($0)" }?.contains("could not be marked as moved, so nothing was copied") == true, "\(String(describing: failure))")
        #expect(try PostgresStorage(url: url).read { db in try db.int64("SELECT count(*) FROM accounts") } == 0)
        _ = try file.createAccount(name: "mary")
    }

    /// A copy the database refuses leaves the file as it was before the run: marked for the copy, its mark
    /// taken back, at its own schema version (a new process opens it), serving on.
    @Test func aCopyThatFailsLeavesTheFileServing() throws {
        let (directory, file, _) = try Self.heathersFile("refused")
        let url = try #require(try TestStore.database(for: TemporaryDirectory("target").url))
        _ = try LocalCloud(directory: TemporaryDirectory("other").url, storage: PostgresStorage(url: url), environment: [:]).createAccount(name: "kim")
        let failure = #expect(throws: CloudError.self) {
            _ = try StorageCopy.copy(from: try LocalCloud.fileStorage(in: directory.url), to: try PostgresStorage(url: url), retiredAt: Date())
        }
        #expect(failure.map { "\($0)" }?.contains("already holds a cloud") == true, "\(String(describing: failure))")
        _ = try file.createAccount(name: "mary")
        #expect(try LocalCloud(directory: directory.url, environment: [:]).accounts().map(\.name).sorted() == ["heather", "mary"])
    }

    /// A copy whose commit's answer was lost (the connection dropped as the database committed) leaves the file
    /// marked, for the database took the cloud; so does one whose database then answers nothing, saying so, and
    /// the next run finishes the move.
    @Test func aCopyWhoseAnswerWasLostLeavesTheFileMarked() throws {
        for goesAway in [false, true] {
            let (directory, file, _) = try Self.heathersFile("answer-lost")
            let url = try #require(try TestStore.database(for: TemporaryDirectory("target").url))
            let source = try LocalCloud.fileStorage(in: directory.url)
            let lost = FailingCommit(try PostgresStorage(url: url), commits: true, goesAway: goesAway)
            if goesAway {
                let failure = #expect(throws: CloudError.self) { _ = try StorageCopy.copy(from: source, to: lost, retiredAt: Date()) }
                #expect(failure.map { "\($0)" }?.contains("stays marked as moved") == true, "\(String(describing: failure))")
                #expect(try StorageCopy.copy(from: source, to: try PostgresStorage(url: url), retiredAt: Date()).rows.isEmpty, "finished")
            } else {
                #expect(try StorageCopy.copy(from: source, to: lost, retiredAt: Date()).rows.isEmpty, "taken, though unanswered")
            }
            let refusal = #expect(throws: CloudError.self, "the database has the cloud") { _ = try file.createAccount(name: "mary") }
            #expect(refusal.map { "\($0)" }?.contains("moved to") == true, "\(String(describing: refusal))")
            let moved = try LocalCloud(directory: directory.url, storage: PostgresStorage(url: url), environment: [:])
            #expect(try moved.accounts().map(\.name) == ["heather"])
        }
    }

    /// A run cut short after it marked the file (which then took no change) is finished by the next, which
    /// copies the file as it was marked; another database is refused; `--undo` takes the mark back.
    @Test func aRunCutShortAfterMarkingIsFinishedByTheNext() throws {
        let (directory, file, _) = try Self.heathersFile("marked")
        let source = try #require(try LocalCloud.fileStorage(in: directory.url) as? SQLiteStorage)
        let url = try #require(try TestStore.database(for: TemporaryDirectory("target").url))
        let target = try PostgresStorage(url: url)
        try source.retire(movedTo: target.location, intoEmpty: true, at: Date())  // as far as the run got
        #expect(throws: CloudError.self, "no write between the runs") { _ = try file.createAccount(name: "mary") }

        let elsewhere = try #require(try TestStore.database(for: TemporaryDirectory("elsewhere").url))
        let refused = #expect(throws: CloudError.self) {
            _ = try StorageCopy.copy(from: try LocalCloud.fileStorage(in: directory.url), to: try PostgresStorage(url: elsewhere), retiredAt: Date())
        }
        #expect(refused.map { "\($0)" }?.contains("has moved to \(target.location) already") == true, "\(String(describing: refused))")

        let report = try StorageCopy.copy(from: try LocalCloud.fileStorage(in: directory.url), to: target, retiredAt: Date())
        #expect(report.rows.first { $0.table == "accounts" }?.count == 1)
        #expect(try LocalCloud(directory: directory.url, storage: target, environment: [:]).accounts().map(\.name) == ["heather"])
        #expect(try StorageCopy.copy(from: source, to: target, retiredAt: Date()).rows.isEmpty, "run again: nothing more to copy")

        let taken = try StorageCopy.takeBackMove(of: source, database: { target }, force: false)
        #expect(taken?.destination == target.location && taken?.newIdentity == nil, "the database took no change since")
        _ = try file.createAccount(name: "mary")
        #expect(try StorageCopy.takeBackMove(of: source, database: { target }, force: false) == nil)
    }

    /// A file marked for a database that held its cloud already (a run that could not take its mark back) is
    /// copied only if the database holds it row for row: the file may have changed after that copy.
    @Test func aFileMarkedForADatabaseThatHeldItAlreadyIsComparedRowForRow() throws {
        let stale = try CutShortCopy("marked-over")
        _ = try stale.file.createAccount(name: "mary")  // after the first copy
        let source = try #require(try LocalCloud.fileStorage(in: stale.directory.url) as? SQLiteStorage)
        try source.retire(movedTo: try PostgresStorage(url: stale.target).location, intoEmpty: false, at: Date())
        let refused = #expect(throws: CloudError.self, "mary would be left out") { try stale.runAgain() }
        #expect(refused.map { "\($0)" }?.contains("changed after") == true, "\(String(describing: refused))")
    }

    /// A copy that fails while another cloud takes the database leaves the file serving: only the file's own
    /// cloud arriving there keeps the mark.
    @Test func aCopyThatFailsAsAnotherCloudTakesTheDatabaseLeavesTheFileServing() throws {
        let (directory, file, _) = try Self.heathersFile("overtaken")
        let url = try #require(try TestStore.database(for: TemporaryDirectory("target").url))
        let other = TemporaryDirectory("other")
        let overtaken = FailingCommit(try PostgresStorage(url: url), commits: false, goesAway: false) {
            _ = try LocalCloud(directory: other.url, storage: PostgresStorage(url: url), environment: [:]).createAccount(name: "kim")
        }
        #expect(throws: CloudError.self) { _ = try StorageCopy.copy(from: try LocalCloud.fileStorage(in: directory.url), to: overtaken, retiredAt: Date()) }
        _ = try file.createAccount(name: "mary")
    }

    /// A database whose cloud nobody used (a command run on it before the copy gave it an identity) takes the
    /// file's cloud all the same; one whose cloud has an account is refused (`aCopyThatFailsLeavesTheFileServing`).
    @Test func aDatabaseWhoseCloudNobodyUsedTakesTheCopy() throws {
        let (directory, file, _) = try Self.heathersFile("early")
        let url = try #require(try TestStore.database(for: TemporaryDirectory("target").url))
        _ = try LocalCloud(directory: TemporaryDirectory("looked").url, storage: PostgresStorage(url: url), environment: [:]).accounts()
        let report = try StorageCopy.copy(from: try LocalCloud.fileStorage(in: directory.url), to: try PostgresStorage(url: url), retiredAt: Date())
        #expect(report.rows.first { $0.table == "accounts" }?.count == 1)
        let moved = try LocalCloud(directory: directory.url, storage: PostgresStorage(url: url), environment: [:])
        #expect(try moved.identity().id == report.identity && moved.accounts().map(\.name) == ["heather"])
    }

    /// A copy whose connection the database ends midway (an operator's `pg_terminate_backend`, a restart) fails
    /// in good time, and leaves the file serving.
    @Test func aCopyWhoseConnectionDiesMidwayFailsAndLeavesTheFileServing() throws {
        let (directory, file, heather) = try Self.heathersFile("severed")
        let notes = ZoneID(name: "Notes", owner: heather.id)
        _ = try file.database(.private, as: heather).save(zone: notes)
        _ = try file.database(.private, as: heather).modifyRecords(saving: (0..<400).map { Record.make("p\($0)", in: notes) })
        let url = try #require(try TestStore.database(for: TemporaryDirectory("target").url))
        let severed = Severed(try PostgresStorage(url: url), afterStatements: 4)
        let ended = DispatchSemaphore(value: 0)
        let outcome = Mutex<Result<StorageCopyReport, CloudError>?>(nil)
        Thread {
            let result = Result { () throws(CloudError) in try StorageCopy.copy(from: try LocalCloud.fileStorage(in: directory.url), to: severed, retiredAt: Date()) }
            outcome.withLock { $0 = result }
            ended.signal()
        }.start()
        try #require(ended.wait(timeout: .now() + 60) == .success, "the copy hung on its dead connection")
        guard case .failure = outcome.withLock({ $0 }) else { Issue.record("copied through a dead connection"); return }
        _ = try file.createAccount(name: "mary")
    }

    /// `migrate --undo` after devices saved in the database (or with a database that cannot say) is refused: the
    /// file would not have their changes, and their tokens are past its. Forced, the file's cloud takes a new
    /// identity, which devices take for another cloud's and rebuild from what they hold.
    @Test func anUndoAfterDevicesUsedTheDatabaseIsRefusedUnlessForced() throws {
        let (directory, file, heather) = try Self.heathersFile("undo")
        let was = try file.identity()
        let url = try #require(try TestStore.database(for: TemporaryDirectory("target").url))
        let source = try LocalCloud.fileStorage(in: directory.url)
        _ = try StorageCopy.copy(from: source, to: try PostgresStorage(url: url), retiredAt: Date())
        let served = try LocalCloud(directory: TemporaryDirectory("served").url, storage: PostgresStorage(url: url), environment: [:])
        let elsewhere = try #require(try TestStore.database(for: TemporaryDirectory("elsewhere").url))
        let wrong = #expect(throws: CloudError.self) {
            _ = try StorageCopy.takeBackMove(of: source, database: { () throws(CloudError) in try PostgresStorage(url: elsewhere) }, force: false)
        }
        #expect(wrong.map { "\($0)" }?.contains("give --to that database") == true, "\(String(describing: wrong))")
        _ = try served.createAccount(name: "kim")  // moves no change number
        let made = #expect(throws: CloudError.self) { _ = try StorageCopy.takeBackMove(of: source, database: { () throws(CloudError) in try PostgresStorage(url: url) }, force: false) }
        #expect(made.map { "\($0)" }?.contains("changes the file has not") == true, "\(String(describing: made))")
        _ = try served.database(.private, as: heather).save(zone: ZoneID(name: "Notes"))
        let used = #expect(throws: CloudError.self) { _ = try StorageCopy.takeBackMove(of: source, database: { () throws(CloudError) in try PostgresStorage(url: url) }, force: false) }
        #expect(used.map { "\($0)" }?.contains("changes the file has not") == true, "\(String(describing: used))")
        let silent = #expect(throws: CloudError.self) {
            _ = try StorageCopy.takeBackMove(of: source, database: { () throws(CloudError) in throw .serviceUnavailable(retryAfter: 1) }, force: false)
        }
        #expect(silent.map { "\($0)" }?.contains("cannot say") == true, "\(String(describing: silent))")
        #expect(throws: CloudError.self, "still marked") { _ = try file.createAccount(name: "mary") }

        let forced = try StorageCopy.takeBackMove(of: source, database: { () throws(CloudError) in try PostgresStorage(url: url) }, force: true)
        let renamed = try #require(forced?.newIdentity)
        let reopened = try LocalCloud(directory: directory.url, environment: [:])
        #expect(try reopened.identity().id == renamed && renamed != was.id)
        _ = try reopened.createAccount(name: "mary")
    }

    /// `migrate --undo` is refused whenever the database's cloud is not exactly the one the file holds: restored
    /// from a dump and given a new identity (devices then rebuilt it and wrote on), emptied, or past the file by
    /// what a server of the file's directory wrote down; it never says "the same" without having compared.
    @Test func anUndoIsRefusedUnlessTheDatabaseHoldsExactlyTheFilesCloud() throws {
        let (directory, file, heather) = try Self.heathersFile("undo-restored")
        let url = try #require(try TestStore.database(for: TemporaryDirectory("restored").url))
        let source = try LocalCloud.fileStorage(in: directory.url)
        _ = try StorageCopy.copy(from: source, to: try PostgresStorage(url: url), retiredAt: Date())
        func undo() -> String? {
            do {
                _ = try StorageCopy.takeBackMove(of: source, database: { () throws(CloudError) in try PostgresStorage(url: url) }, force: false,
                                                 highWater: directory.url)
                return nil
            } catch { return "\(error)" }
        }
        // Restored from a dump taken at the copy, below what servers had written: re-identified on its next opening.
        let dump = try TestStore.dump(url)
        let served = try LocalCloud(directory: TemporaryDirectory("served-restored").url, storage: PostgresStorage(url: url), environment: [:])
        _ = try served.database(.private, as: heather).save(zone: ZoneID(name: "Later"))
        try TestStore.putBack(dump, into: url)
        try TestStore.psql("UPDATE identity SET cloud = 'crestored' WHERE id = 1", in: url)  // as recoverIfRestored does
        #expect(undo()?.contains("holds cloud crestored, not") == true, "\(undo() ?? "taken back")")
        // Emptied.
        try TestStore.psql("DROP SCHEMA public CASCADE; CREATE SCHEMA public", in: url)
        _ = try PostgresStorage(url: url)  // (its tables again, empty)
        #expect(undo()?.contains("holds no cloud") == true, "\(undo() ?? "taken back")")
        #expect(throws: CloudError.self, "still marked") { _ = try file.createAccount(name: "mary") }
    }

    /// Even with the database holding the file's cloud row for row, a server of the file's directory that went past
    /// the file's change (its high-water mark says) stops the undo: devices' tokens are past the file's.
    @Test func anUndoIsRefusedWhenThisDirectorysServerWentPastTheFile() throws {
        let (directory, _, _) = try Self.heathersFile("undo-high-water")
        let url = try #require(try TestStore.database(for: TemporaryDirectory("high-water").url))
        let source = try LocalCloud.fileStorage(in: directory.url)
        _ = try StorageCopy.copy(from: source, to: try PostgresStorage(url: url), retiredAt: Date())
        let id = try #require(try source.read { db in try LocalCloud.readIdentity(db).id })
        try Data("999999 \(id)\n".utf8).write(to: directory.url.appendingPathComponent("high-water"))
        #expect {
            _ = try StorageCopy.takeBackMove(of: source, database: { () throws(CloudError) in try PostgresStorage(url: url) }, force: false,
                                             highWater: directory.url)
        } throws: { "\($0)".contains("served the cloud up to change 999999") }
    }

    /// A copy cut short after the database took the cloud (the file not marked) is finished by running it again:
    /// nothing copied twice, the file marked. A file that changed since is refused, not marked.
    @Test func aCopyCutShortIsFinishedByRunningItAgain() throws {
        let (directory, file, _) = try Self.heathersFile("cut-short")
        let source = try LocalCloud.fileStorage(in: directory.url)
        let url = try #require(try TestStore.database(for: TemporaryDirectory("target").url))
        let copied = try StorageCopy.copy(from: source, to: try PostgresStorage(url: url))  // as far as a cut-short run got
        let finished = try StorageCopy.copy(from: source, to: try PostgresStorage(url: url), retiredAt: Date())
        #expect(finished.rows.isEmpty && finished.identity == copied.identity && finished.sequence == copied.sequence)
        let refusal = #expect(throws: CloudError.self) { _ = try file.createAccount(name: "mary") }
        #expect(refusal.map { "\($0)" }?.contains("moved to") == true, "\(String(describing: refusal))")

        let changed = try CutShortCopy("changed-since")
        _ = try changed.file.createAccount(name: "mary")
        try changed.file.database(.private, as: try changed.file.accountCreatingIfNeeded(name: "mary")).save(zone: ZoneID(name: "Notes"))
        let stale = #expect(throws: CloudError.self) { try changed.runAgain() }
        #expect(stale.map { "\($0)" }?.contains("changed after") == true, "\(String(describing: stale))")
        _ = try changed.file.createAccount(name: "kim")  // not marked: still the file's cloud

        // A change that does not move the sequence (an account made) is a change all the same.
        let quiet = try CutShortCopy("quiet-change")
        _ = try quiet.file.createAccount(name: "mary")
        #expect(throws: CloudError.self, "mary would be left out of the copy") { try quiet.runAgain() }
    }

    /// A cloud file of heather's (her account and nothing else) in a directory of its own.
    static func heathersFile(_ label: String) throws -> (directory: TemporaryDirectory, file: LocalCloud, heather: Account) {
        let directory = TemporaryDirectory(label)
        let file = try LocalCloud(directory: directory.url, environment: [:])
        return (directory, file, try file.createAccount(name: "heather"))
    }

    /// A file cloud of heather's, copied into a database of its own by a run cut short before it marked the file.
    struct CutShortCopy {
        let directory: TemporaryDirectory
        let file: LocalCloud
        let target: String

        init(_ label: String) throws {
            (directory, file, _) = try StorageCopyTests.heathersFile(label)
            target = try #require(try TestStore.database(for: TemporaryDirectory("\(label)-target").url))
            _ = try StorageCopy.copy(from: try LocalCloud.fileStorage(in: directory.url), to: try PostgresStorage(url: target))
        }

        /// `migrate` run again: the copy, marking the file.
        func runAgain() throws {
            _ = try StorageCopy.copy(from: try LocalCloud.fileStorage(in: directory.url), to: try PostgresStorage(url: target), retiredAt: Date())
        }
    }

    /// A database whose copy's commit fails: `commits`, after the database committed (its answer lost, the
    /// connection dropped); else before, after `meanwhile` (another's write). With `goesAway`, it answers nothing
    /// after.
    final class FailingCommit: CloudStorage, @unchecked Sendable {
        let real: any CloudStorage
        let commits: Bool
        let goesAway: Bool
        let meanwhile: () throws -> Void
        private var failed = false

        init(_ real: any CloudStorage, commits: Bool, goesAway: Bool, meanwhile: @escaping () throws -> Void = {}) {
            self.real = real
            self.commits = commits
            self.goesAway = goesAway
            self.meanwhile = meanwhile
        }

        var dialect: SQLDialect { real.dialect }
        var location: String { real.location }

        func write<T>(_ body: (any SQLTransaction) throws -> T) throws(CloudError) -> T {
            if commits { _ = try real.write(body) } else { do { try meanwhile() } catch { throw .storage("\(error)") } }
            failed = true
            throw .serviceUnavailable(retryAfter: 1)
        }

        func read<T>(_ body: (any SQLTransaction) throws -> T) throws(CloudError) -> T {
            if failed && goesAway { throw .serviceUnavailable(retryAfter: 1) }
            return try real.read(body)
        }

        func lookUp<T>(_ body: (any SQLTransaction) throws -> T) throws(CloudError) -> T { try real.lookUp(body) }
        func post(_ topics: Set<PushTopic>, sequence: Int64) { real.post(topics, sequence: sequence) }
        func subscribe(to topics: Set<PushTopic>?, handler: @escaping @Sendable (Push) -> Void) -> any PushWatch {
            real.subscribe(to: topics, handler: handler)
        }
        func integrityCheck() throws(CloudError) -> String { try real.integrityCheck() }
    }

    /// A database whose connection it ends itself after the copy's first `afterStatements` statements.
    final class Severed: CloudStorage, @unchecked Sendable {
        let real: any CloudStorage
        let afterStatements: Int

        init(_ real: any CloudStorage, afterStatements: Int) {
            self.real = real
            self.afterStatements = afterStatements
        }

        var dialect: SQLDialect { real.dialect }
        var location: String { real.location }

        func write<T>(_ body: (any SQLTransaction) throws -> T) throws(CloudError) -> T {
            try real.write { db in try body(Cut(db, after: afterStatements)) }
        }

        func read<T>(_ body: (any SQLTransaction) throws -> T) throws(CloudError) -> T { try real.read(body) }
        func lookUp<T>(_ body: (any SQLTransaction) throws -> T) throws(CloudError) -> T { try real.lookUp(body) }
        func post(_ topics: Set<PushTopic>, sequence: Int64) { real.post(topics, sequence: sequence) }
        func subscribe(to topics: Set<PushTopic>?, handler: @escaping @Sendable (Push) -> Void) -> any PushWatch {
            real.subscribe(to: topics, handler: handler)
        }
        func integrityCheck() throws(CloudError) -> String { try real.integrityCheck() }

        /// The transaction, whose backend ends itself before the statement after the first `after`.
        final class Cut: SQLTransaction {
            let real: any SQLTransaction
            let after: Int
            private var statements = 0

            init(_ real: any SQLTransaction, after: Int) {
                self.real = real
                self.after = after
            }

            var dialect: SQLDialect { real.dialect }
            var identityUnderLock: SQLAnswer? { real.identityUnderLock }

            private func counted() {
                statements += 1
                if statements == after + 1 { _ = try? real.run("SELECT pg_terminate_backend(pg_backend_pid())", []) { _ in } }
            }

            func run(_ sql: String, _ values: [SQLValue], row: (any SQLRow) throws -> Void) throws -> Int {
                counted()
                return try real.run(sql, values, row: row)
            }

            func send(_ sql: String, _ values: [SQLValue]) throws {
                counted()
                try real.send(sql, values)
            }

            func ask(_ sql: String, _ values: [SQLValue]) throws -> SQLAnswer {
                counted()
                return try real.ask(sql, values)
            }
        }
    }
}
