import Cloud
import Foundation
import Synchronization
import Testing
import TestSupport

@Suite struct ManyProcessTests {
    /// Several processes save one record naming the same change tag at once,
    /// round after round: exactly one wins each round and nothing is lost.
    @Test func exactlyOneConcurrentSaveWinsEachRound() throws {
        let cli = CLI()
        let processes = 6, rounds = 8
        _ = try cli.ok("cloud", "create-account", "heather")
        _ = try cli.ok("cloud", "create-zone", "Notes", "--account", "heather")
        _ = try cli.ok("cloud", "save-record", "--account", "heather", "--zone", "Notes", "--type", "Post", "--name", "p1",
                       "--field", "count:int=0")
        var winners: [Int] = []

        for round in 1...rounds {
            let record = try cli.json("cloud", "get-record", "--account", "heather", "--zone", "Notes", "p1") as! [String: Any]
            let tag = record["changeTag"] as! String
            let running = try (0..<processes).map { p in
                try cli.start(["cloud", "save-record", "--account", "heather", "--zone", "Notes", "--type", "Post",
                               "--name", "p1", "--if-tag", tag, "--field", "count:int=\(round)", "--field", "winner:int=\(p)"])
            }
            let results = running.map { $0.finish() }

            let won = results.indices.filter { results[$0].status == 0 }
            #expect(won.count == 1, "round \(round): \(won.count) saves won")
            for loser in results.indices where results[loser].status != 0 {
                #expect(results[loser].stderr.contains("server record changed"), "\(results[loser].stderr)")
            }
            winners += won
        }

        let final = try cli.json("cloud", "get-record", "--account", "heather", "--zone", "Notes", "p1") as! [String: Any]
        let fields = final["fields"] as! [String: [String: Any]]
        #expect(fields["count"]?["value"] as? Int == rounds)
        #expect(fields["winner"]?["value"] as? Int == winners.last)
        let history = try cli.json("cloud", "changes", "--account", "heather", "--zone", "Notes") as! [String: Any]
        #expect((history["modified"] as! [Any]).count == 1)
        #expect(try cli.ok("cloud", "check") == "ok\n")
    }

    /// A subscriber in this process hears of a commit made by another process.
    @Test func aCommitInAnotherProcessIsPushedHere() throws {
        let cli = CLI()
        _ = try cli.ok("cloud", "create-account", "heather")
        let cloud = try TestStore.open(directory: URL(fileURLWithPath: cli.cloudPath))
        let heather = try cloud.account(named: "heather")
        let heard = Mutex<[Date]>([])
        let subscription = cloud.database(.private, as: heather).subscribe { _ in heard.withLock { $0.append(Date()) } }
        defer { subscription.cancel() }

        let started = Date()
        _ = try cli.ok("cloud", "create-zone", "Notes", "--account", "heather")
        let finished = Date()

        #expect(eventually { !heard.withLock { $0.isEmpty } })
        let at = heard.withLock { $0[0] }
        #expect(at >= started)
        // Informational: how long after the writing process exited the push arrived.
        print("push latency after the writer exited: \(Int(max(0, at.timeIntervalSince(finished)) * 1000)) ms")
    }
}
