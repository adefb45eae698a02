/// How big a record is as the cloud counts it against `CloudLimits.maxRecordBytes`: its plain and encrypted
/// fields, encoded as the cloud stores them. A device measures with the same rule before it saves, so text
/// that could never be sent is refused while the person is still there to hear it.
extension Record {
    public var encodedSize: Int { RecordArchive.encodeBody(self).count }
}

/// Byte counts as people read them: "812 bytes", "1.2 KB", "1.2 MB" (1 MB = 1,048,576 bytes, as the limits are set).
public enum ByteCount {
    public static func text(_ bytes: Int) -> String {
        if bytes < 1024 { return bytes == 1 ? "1 byte" : "\(bytes) bytes" }
        let (value, unit) = bytes < 1024 * 1024 ? (Double(bytes) / 1024, "KB") : (Double(bytes) / 1024 / 1024, "MB")
        let tenths = (value * 10).rounded()
        return tenths.truncatingRemainder(dividingBy: 10) == 0 ? "\(Int(tenths / 10)) \(unit)" : "\(tenths / 10) \(unit)"
    }

    /// "1.2 MB of 1 MB": a size over a limit, in bytes where rounding would make the two look alike.
    public static func over(_ size: Int, limit: Int) -> String {
        let (a, b) = (text(size), text(limit))
        return a == b ? "\(size) bytes of \(limit)" : "\(a) of \(b)"
    }
}
