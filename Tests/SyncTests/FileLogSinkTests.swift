import Foundation
import Sync
import Testing
import TestSupport

@Suite struct FileLogSinkTests {
    /// Several processes share one log, so a sink adds to it; a run that wants its own log asks for a fresh one.
    @Test func aSinkAddsToTheFileUnlessAskedForAFreshOne() throws {
        let directory = TemporaryDirectory("log")
        let path = directory.path("sync.log").path
        try FileLogSink(path: path).write("first run")
        try FileLogSink(path: path).write("second process")
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "first run\nsecond process\n")

        try FileLogSink(path: path, fresh: true).write("replay")

        #expect(try String(contentsOfFile: path, encoding: .utf8) == "replay\n")
    }
}
