import Cloud
import Foundation

/// `records/query`: the live records of one type in a zone that pass every filter, sorted, a page at a time. The
/// cloud keeps no query index: the zone is read (a zone holds one notebook), so a query costs a fetch.
///
/// Any account may ask, so every cost is bounded before and while it runs: sort keys, filters and the items of a
/// filter's list are counted before anything is read; the zone is read a batch at a time, filtered as it comes (only
/// matches are kept), up to `maxScanned` records; each batch checks that the client is still there and the request
/// within its time (`ServedRequest.checkContinue`); and the matches are sorted once, on all keys together. The server
/// charges the time it takes to the caller's rate (`CloudServer.Configuration.workShare`).
enum WireQuery {
    static let maxSortKeys = 8
    static let maxFilters = 16
    static let maxListItems = WireService.maxItems
    /// The records a query reads at most; a larger zone is refused (LIMIT_EXCEEDED) rather than read whole.
    static let maxScanned = 20_000
    /// Records read per transaction: small, so a query holds the store for no longer than a sync's fetch does.
    static let batch = 100

    static func run(_ request: RecordsQueryRequest, _ database: CloudDatabase) throws -> RecordsResponse {
        let query = request.query
        let filters = query.filterBy ?? [], sorts = query.sortBy ?? []
        try check(query, filters: filters, sorts: sorts)
        let zone = request.zoneID?.zoneID ?? ZoneID(name: ZoneID.defaultName)
        var matching: [Record] = [], places: [String: Int] = [:], scanned = 0
        var token: ChangeToken?, moreComing = true
        while moreComing {
            try ServedRequest.checkContinue()
            let found = try database.zoneChanges(in: zone, since: token, limit: batch)
            scanned += found.modified.count
            guard scanned <= maxScanned else {
                throw CloudError.limitExceeded("a query reads at most \(maxScanned) records, and this zone holds more; fetch its changes instead")
            }
            for record in found.modified where record.type == query.recordType {
                let keep = try filters.allSatisfy { try matches(record, $0) }
                // A record changed while the zone is read comes again, in a later batch: that one stands.
                if let place = places[record.id.name] {
                    if keep { matching[place] = record }
                } else if keep {
                    places[record.id.name] = matching.count
                    matching.append(record)
                }
            }
            token = found.token
            moreComing = found.moreComing
        }
        if !sorts.isEmpty {
            // Each record's sort values read once, not at every comparison.
            let keys = matching.map { record in sorts.map { record[$0.fieldName] } }
            let ascending = sorts.map { $0.ascending ?? true }
            matching = matching.indices.sorted { a, b in
                for (k, up) in ascending.enumerated() {
                    let order = compare(keys[a][k], keys[b][k])
                    if order != .orderedSame { return (order == .orderedAscending) == up }
                }
                return a < b
            }.map { matching[$0] }
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

    /// Refuses, before the zone is read, a query past a bound or that could not be answered.
    private static func check(_ query: RecordsQueryRequest.Query, filters: [RecordsQueryRequest.Filter],
                              sorts: [RecordsQueryRequest.Sort]) throws {
        guard sorts.count <= maxSortKeys else { throw CloudError.limitExceeded("a query sorts by at most \(maxSortKeys) fields, not \(sorts.count)") }
        guard filters.count <= maxFilters else { throw CloudError.limitExceeded("a query has at most \(maxFilters) filters, not \(filters.count)") }
        for name in sorts.map(\.fieldName) + filters.map(\.fieldName) { try FieldAssignment.validate(key: name) }
        for filter in filters {
            guard case .plain(let value) = filter.fieldValue else { throw WireFormatError("a query cannot compare encrypted values") }
            guard comparators.contains(filter.comparator) else {
                throw WireFormatError("comparator \(filter.comparator.prefix(40)) is not one this server knows")
            }
            if ["IN", "NOT_IN"].contains(filter.comparator) {
                guard case .list(let options) = value else { throw WireFormatError("\(filter.comparator) compares with a list") }
                guard options.count <= maxListItems else {
                    throw CloudError.limitExceeded("\(filter.comparator) compares with at most \(maxListItems) values, not \(options.count)")
                }
            }
        }
    }

    private static let comparators: Set<String> = ["EQUALS", "NOT_EQUALS", "LESS_THAN", "LESS_THAN_OR_EQUALS", "GREATER_THAN",
                                                   "GREATER_THAN_OR_EQUALS", "BEGINS_WITH", "IN", "NOT_IN", "LIST_CONTAINS"]

    private static func matches(_ record: Record, _ filter: RecordsQueryRequest.Filter) throws -> Bool {
        guard case .plain(let wanted) = filter.fieldValue else { return false }  // (refused by `check`)
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
        case "IN", "NOT_IN":
            guard case .list(let options) = wanted else { return false }  // (refused by `check`)
            return (value.map(options.contains) ?? false) == (filter.comparator == "IN")
        case "LIST_CONTAINS":
            guard case .list(let items)? = value else { return false }
            return items.contains(wanted)
        default:
            return false  // (refused by `check`)
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
