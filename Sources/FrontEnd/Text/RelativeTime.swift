import Foundation
import Glibc

/// How long ago something happened, in at most six columns, as a list shows it:
/// "now", "5m", "3h", "2d", then the day ("Nov 3") and, past this year, the year ("Nov '24").
enum RelativeTime {
    static func text(_ date: Date, now: Date) -> String {
        let seconds = now.timeIntervalSince(date)
        switch seconds {
        case ..<60: return "now"  // a clock a little ahead reads as now, not as the future
        case ..<3_600: return "\(Int(seconds / 60))m"
        case ..<86_400: return "\(Int(seconds / 3_600))h"
        case ..<(7 * 86_400): return "\(Int(seconds / 86_400))d"
        default:
            let (then, today) = (local(date), local(now))
            let month = months[Int(then.tm_mon)]
            return then.tm_year == today.tm_year ? "\(month) \(then.tm_mday)" : String(format: "%@ '%02d", month, then.tm_year % 100)
        }
    }

    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    private static func local(_ date: Date) -> tm {
        var seconds = time_t(date.timeIntervalSince1970.rounded(.down))
        var parts = tm()
        localtime_r(&seconds, &parts)
        return parts
    }
}
