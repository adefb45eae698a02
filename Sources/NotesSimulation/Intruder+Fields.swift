import Cloud
import Foundation
import Notes

/// eve's raw records: what a read-write participant can send that the app never would, into the shares she
/// may write. Whatever the cloud takes of it, every zone must still read whole for its owner and everyone in
/// it, and every device must still sync and agree (`AppSimulation.check`); what it refuses changes nothing.
extension Intruder {
    /// The shapes she sends, each a way a record has broken a reader somewhere.
    enum Shape: String, CaseIterable {
        /// Lists inside lists, up to far deeper than any reader takes.
        case deepList
        /// A field name of 20,000 characters, an empty one, one of 255, one not ASCII.
        case hugeKey
        /// Text filling most of a record, in many fields.
        case hugeValue
        /// A number or date at or past its end, control characters or an escape sequence in a title, an empty one.
        case extremes
        /// A post whose fields hold the wrong types (a list for its title, a number for its text).
        case wrongTypes
        /// A shared record moved: under a record that does not exist, under itself, or under another.
        case move
        /// A comment whose post is not there, or is in another zone's name, deleted with what it names.
        case strayReference
        /// A record of the cloud's own share type, or of a type nobody reads.
        case foreignType
    }

    /// One record of a hostile shape, saved over a record of a zone she sees or beside them.
    mutating func plantFields(_ cloud: any Cloud, random: SeededRandom) throws -> (note: String, violations: [String]) {
        let shared = observer.database(.shared, as: account)
        let zones = try shared.allZones().sorted { $0.description < $1.description }
        guard !zones.isEmpty else { return ("", []) }
        let zone = zones[random.below(zones.count)]
        let records = Self.everyRecord(in: zone, of: shared).filter { $0.type == Post.recordType || $0.type == Comment.recordType }
        let shape = Shape.allCases[random.below(Shape.allCases.count)]
        let existing = records.isEmpty || random.below(3) == 0 ? nil : records[random.below(records.count)]
        // A new record sits under a post of the share, as the cloud requires of a share of one post.
        let posts = records.filter { $0.type == Post.recordType }
        let under = posts.isEmpty ? nil : posts[random.below(posts.count)].id.name
        var record = existing ?? {
            var new = Record(type: Post.recordType, id: RecordID(name: "eve-\(random.below(1_000_000))", zone: zone))
            if random.below(4) != 0 { new.setParent(under) }
            return new
        }()
        switch shape {
        case .deepList:
            var value = FieldValue.string("bottom")
            for _ in 0..<(2 + random.below(60)) { value = .list([value]) }
            record["tags"] = value
        case .hugeKey:
            let keys = [String(repeating: "k", count: 20_000), "", "k" + String(repeating: "0", count: 254), "é"]
            record[keys[random.below(keys.count)]] = .string("x")
        case .hugeValue:
            for index in 0..<random.below(8) { record["big\(index)"] = .string(String(repeating: "é", count: 40_000)) }
            record["content"] = .string(String(repeating: "word ", count: 10_000 + random.below(150_000)))
        case .extremes:
            let values: [(String, FieldValue)] = [
                ("count", .int(.min)), ("count", .int(.max)), ("ratio", .double(.greatestFiniteMagnitude)), ("ratio", .double(-0.0)),
                ("ratio", .double(.leastNonzeroMagnitude)), ("ratio", .double(.nan)), ("ratio", .double(-.infinity)),
                ("modified", .date(Date(timeIntervalSince1970: -FieldValue.maxDateSeconds))),
                ("modified", .date(Date(timeIntervalSince1970: FieldValue.maxDateSeconds * 2))),
                ("title", .string("\u{1b}]52;c;ZXZl\u{07}\u{1b}[2J\u{0}\r\u{202e}eve\u{200b}")), ("title", .string("")),
                ("tags", .list([.string("\u{1b}[31m"), .string(""), .string(String(repeating: ",", count: 500))])),
            ]
            let (key, value) = values[random.below(values.count)]
            record[key] = value
        case .wrongTypes:
            record["title"] = .list([.int(1), .bytes(Data([0xff, 0xfe]))])
            record["content"] = .int(42)
            record["tags"] = .string("not,a,list")
            record["post"] = .double(1.5)
        case .move:
            let others = records.map(\.id.name).filter { $0 != record.id.name }
            let targets = ["ghost-\(random.below(1000))", record.id.name] + others
            record.setParent(targets[random.below(targets.count)])
        case .strayReference:
            record = Record(type: Comment.recordType, id: RecordID(name: "eve-c\(random.below(1_000_000))", zone: zone))
            let target = under == nil || random.below(2) == 0 ? "nowhere-\(random.below(1000))" : under!
            record["post"] = .reference(Reference(recordName: random.below(2) == 0 ? target : "elsewhere", action: .deleteSelf))
            record["text"] = .string("stray")
            record.setParent(random.below(3) == 0 ? "nowhere" : under)
        case .foreignType:
            let types = [Share.recordType, "Users", "_eve", String(repeating: "T", count: 300)]
            let type = types[random.below(types.count)]
            var planted = Record(type: type, id: RecordID(name: random.below(2) == 0 ? "share-\(record.id.name)" : "eve-t\(random.below(1000))", zone: zone))
            planted["title"] = .string("planted")
            planted.setParent(under)
            record = planted
        }
        let refusal: String
        do {
            _ = try cloud.database(.shared, as: account).save(record, policy: .allKeys)
            refusal = ""
        } catch {
            refusal = " (refused: \(String(describing: error).prefix(80)))"
        }
        // Writing over a post's text is hers to do, as a read-write participant: what it held was removed on purpose.
        // (Asked of the cloud, not of the answer: a save the network cut off may have been made.)
        if existing?.id == record.id, record.type == Post.recordType,
           let now = try? observer.database(.shared, as: account).record(record.id), now.fields == record.fields {
            overwritten.append(record.id)
        }
        return (" plant \(shape.rawValue) in \(record.id)\(refusal)", [])
    }

    /// What must hold after any step she takes: every zone of every owner reads whole (its records and its
    /// trash), as its owner sees it, with faults off. A zone that no longer reads is lost to everyone in it.
    func checkZonesRead(owners: [Account]) -> [String] {
        var violations: [String] = []
        for owner in owners {
            let mine = observer.database(.private, as: owner)
            do {
                for zone in try mine.allZones() {
                    do {
                        _ = try mine.everyRecord(in: zone)
                        _ = try mine.trash(in: zone, type: Post.recordType)
                    } catch {
                        violations.append("\(owner.name)'s zone \(zone.name) no longer reads: \(error)")
                    }
                }
            } catch {
                violations.append("\(owner.name)'s zones no longer list: \(error)")
            }
        }
        return violations
    }
}
