import Foundation
import Testing
import TestSupport

/// The private PostgreSQL cluster the PostgreSQL store's tests run against (issue 20): it starts in a temporary
/// directory on a free loopback port, answers, and keeps what it committed across a crash.
@Suite(.enabled(if: PostgresCluster.runs, "PostgreSQL is not installed here: scripts/setup installs it"))
struct PostgresClusterTests {
    @Test func aPrivateClusterAnswersAndKeepsWhatItCommittedAcrossACrash() throws {
        let cluster = try PostgresCluster()
        try cluster.psql("CREATE TABLE t(x int); INSERT INTO t VALUES (1), (2)")
        #expect(try cluster.psql("SELECT sum(x) FROM t") == "3")
        try cluster.restart()  // an immediate stop: the server is gone as in a crash
        #expect(try cluster.psql("SELECT sum(x) FROM t") == "3")
        #expect(try cluster.psql("SHOW listen_addresses") == "127.0.0.1")
        #expect(try cluster.psql("SELECT current_setting('server_version_num')::int / 10000") == "15")
    }
}
