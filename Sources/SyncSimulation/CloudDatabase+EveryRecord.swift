import Cloud

extension CloudDatabase {
    /// Every live record of a zone as this database shows it to its caller, read from scratch, page by page:
    /// what the simulations' checks and attackers look at.
    public func everyRecord(in zone: ZoneID) throws(CloudError) -> [Record] {
        var records: [Record] = []
        var token: ChangeToken?
        var more = true
        while more {
            let batch = try zoneChanges(in: zone, since: token)
            records += batch.modified
            (token, more) = (batch.token, batch.moreComing)
        }
        return records
    }
}
