import Cloud
import Foundation

/// `records/query`: the live records of one type in a zone that pass every filter, sorted, a page at a time. The
/// cloud keeps no query index: the zone is read whole (a zone holds one notebook), so a query costs a fetch.
enum WireQuery {
    static func run(_ request: RecordsQueryRequest, _ database: CloudDatabase) throws -> RecordsResponse {
        let zone = request.zoneID?.zoneID ?? ZoneID(name: ZoneID.defaultName)
        var records: [Record] = []
        var token: ChangeToken?
        var moreComing = true
        while moreComing {
            let batch = try database.zoneChanges(in: zone, since: token)
            records += batch.modified
            token = batch.token
            moreComing = batch.moreComing
        }
        let filters = request.query.filterBy ?? []
        var matching = try records.filter { record in
            guard record.type == request.query.recordType else { return false }
            return try filters.allSatisfy { try matches(record, $0) }
        }
        for sort in (request.query.sortBy ?? []).reversed() {
            matching = matching.enumerated().sorted { a, b in
                let order = compare(a.element[sort.fieldName], b.element[sort.fieldName])
                if order == .orderedSame { return a.offset < b.offset }
                return (order == .orderedAscending) == (sort.ascending ?? true)
            }.map(\.element)
        }
        let start = try request.continuationMarker.map { text throws(WireFormatError) in
            guard let start = Int(text), start >= 0 else { throw WireFormatError("continuationMarker \(text) is not one this server gave") }
            return start
        } ?? 0
        let limit = max(1, min(request.resultsLimit ?? 200, 200))
        let page = Array(matching.dropFirst(start).prefix(limit))
        let next = start + page.count < matching.count ? String(start + page.count) : nil
        return RecordsResponse(records: page.map { .value(WireRecord($0)) }, continuationMarker: next)
    }

    private static func matches(_ record: Record, _ filter: RecordsQueryRequest.Filter) throws -> Bool {
        guard case .plain(let wanted) = filter.fieldValue else { throw WireFormatError("a query cannot compare encrypted values") }
        let value = record[filter.fieldName]
        switch filter.comparator {
        case "EQUALS": return value == wanted
        case "NOT_EQUALS": return value != wanted
        case "LESS_THAN": return compare(value, wanted) == .orderedAscending
        case "LESS_THAN_OR_EQUALS": return value != nil && compare(value, wanted) != .orderedDescending
        case "GREATER_THAN": return compare(value, wanted) == .orderedDescending
        case "GREATER_THAN_OR_EQUALS": return value != nil && compare(value, wanted) != .orderedAscending
        case "BEGINS_WITH":
            guard case .string(let text)? = value, case .string(let prefix) = wanted else { return false }
            return text.hasPrefix(prefix)
        case "IN":
            guard case .list(let options) = wanted else { throw WireFormatError("IN compares with a list") }
            return value.map(options.contains) ?? false
        case "NOT_IN":
            guard case .list(let options) = wanted else { throw WireFormatError("NOT_IN compares with a list") }
            return !(value.map(options.contains) ?? false)
        case "LIST_CONTAINS":
            guard case .list(let items)? = value else { return false }
            return items.contains(wanted)
        default:
            throw WireFormatError("comparator \(filter.comparator) is not one this server knows")
        }
    }

    /// Orders values of one type; a missing value or another type comes first.
    private static func compare(_ a: FieldValue?, _ b: FieldValue?) -> ComparisonResult {
        func order<T: Comparable>(_ x: T, _ y: T) -> ComparisonResult { x < y ? .orderedAscending : x > y ? .orderedDescending : .orderedSame }
        switch (a, b) {
        case (.string(let x)?, .string(let y)?): return order(x, y)
        case (.int(let x)?, .int(let y)?): return order(x, y)
        case (.double(let x)?, .double(let y)?): return order(x, y)
        case (.date(let x)?, .date(let y)?): return order(x, y)
        case (.int(let x)?, .double(let y)?): return order(Double(x), y)
        case (.double(let x)?, .int(let y)?): return order(x, Double(y))
        case (nil, nil): return .orderedSame
        case (nil, _): return .orderedAscending
        case (_, nil): return .orderedDescending
        default: return .orderedSame
        }
    }
}
