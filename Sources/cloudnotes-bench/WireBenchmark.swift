import Cloud
import CloudWire
import Foundation

/// The protocol's JSON alone, no network, no SQLite: what writing and reading a send's and a fetch's bodies costs.
enum WireBenchmark {
    /// `n` post-shaped records, in batches of 400 as the sync core sends them.
    static func records(_ n: Int) -> [[Record]] {
        let zone = ZoneID(name: "Notes", owner: "_owner")
        let now = Date(timeIntervalSince1970: 1_790_000_000)
        let records = Scratch.posts(n, in: zone).enumerated().map { i, post in
            var record = Record(type: "Post", id: RecordID(name: post.id, zone: zone))
            record["title"] = .string(post.title)
            record["content"] = .string(post.content)
            record["tags"] = .list(post.tags.map(FieldValue.string))
            record["edited"] = .date(now)
            record["editor"] = .string("_owner")
            record["device"] = .string("laptop")
            record.restoreSystemFields(SystemFields(changeTag: "t\(i)", createdAt: now, createdBy: "_owner", modifiedAt: now, modifiedBy: "_owner"))
            return record
        }
        return stride(from: 0, to: records.count, by: 400).map { Array(records[$0..<min($0 + 400, records.count)]) }
    }

    static func measure(_ n: Int, rounds: Int = 5) throws -> [Figure] {
        let batches = records(n)
        var writeSend = Timings(), readSend = Timings(), writeFetch = Timings(), readFetch = Timings()
        for _ in 0..<rounds {
            var bodies: [Data] = []
            try writeSend.time {
                // As the client writes a batch: its zone named once.
                bodies = try batches.map { batch in
                    let operations = batch.map { record in
                        var wire = WireRecord(saving: record)
                        wire.zoneID = nil
                        return RecordsModifyRequest.Operation(operationType: "update", record: wire)
                    }
                    return try WireJSON.encode(RecordsModifyRequest(operations: operations, zoneID: WireZoneID(batch[0].id.zone), atomic: true,
                                                                    desiredKeys: []))
                }
            }
            try readSend.time {
                for body in bodies {
                    let request = try WireJSON.decode(RecordsModifyRequest.self, from: body)
                    for operation in request.operations { _ = try operation.record.changes(in: ZoneID(name: "Notes", owner: "_owner")) }
                }
            }
            try writeFetch.time {
                bodies = try batches.map { batch in
                    try WireJSON.encode(ZoneChangesResponse(zones: [.init(zoneID: WireZoneID(batch[0].id.zone), records: batch.map { WireRecord($0) },
                                                                               syncToken: "token", moreComing: true)]))
                }
            }
            try readFetch.time {
                for body in bodies {
                    let answer = try WireJSON.decode(ZoneChangesResponse.self, from: body)
                    for record in answer.zones[0].records ?? [] { _ = try record.stored(in: ZoneID(name: "Notes", owner: "_owner")) }
                }
            }
        }
        return [
            Figure(name: "wire: write \(n) records to send", median: writeSend.median, unit: "ms", target: "—"),
            Figure(name: "wire: read them (the server)", median: readSend.median, unit: "ms", target: "—"),
            Figure(name: "wire: write \(n) records fetched (the server)", median: writeFetch.median, unit: "ms", target: "—"),
            Figure(name: "wire: read them", median: readFetch.median, unit: "ms", target: "—"),
        ]
    }
}
