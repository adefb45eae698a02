import Cloud
import Foundation

/// An error as the protocol writes it: Apple's `{uuid, serverErrorCode,
/// reason, retryAfter, redirectURL}`, for a whole request (with its HTTP
/// status) or for one record of a `records` array (with its `recordName`).
///
/// `serverErrorCode` is Apple's code where Apple has one; two are ours
/// (`CHANGE_TOKEN_EXPIRED`, `LIMIT_EXCEEDED`). Our extension keys say
/// exactly which CloudNotes error it was, so a CloudNotes client rebuilds it:
/// `cloudnotesCode` (`CloudError.code`), and, where the error carries them,
/// `detail` (its words), `zoneID`, `serverRecord` (a conflict's record as the
/// server has it) and `limit`.
public struct WireError: Hashable, Sendable, Error {
    /// The server's ID for the failure, for its log; clients' per-record errors often leave it out.
    public var uuid: String?
    public var serverErrorCode: String
    public var reason: String?
    /// Seconds.
    public var retryAfter: Double?
    public var redirectURL: String?
    public var recordName: String?
    public var zoneID: WireZoneID?
    public var cloudnotesCode: String?
    public var serverRecord: WireRecord?
    public var limit: Int?
    public var detail: String?

    public init(uuid: String, serverErrorCode: String, reason: String? = nil, retryAfter: Double? = nil) {
        self.uuid = uuid
        self.serverErrorCode = serverErrorCode
        self.reason = reason
        self.retryAfter = retryAfter
    }

    /// A refusal of who is calling: nothing in it an attacker could use.
    public static func authenticationFailed(uuid: String) -> WireError {
        WireError(uuid: uuid, serverErrorCode: "AUTHENTICATION_FAILED", reason: "authentication failed")
    }

    /// The HTTP status Apple answers a request-level error with.
    public var httpStatus: Int {
        switch serverErrorCode {
        case "ACCESS_DENIED": 403
        case "AUTHENTICATION_FAILED": 401
        case "AUTHENTICATION_REQUIRED": 421
        case "CONFLICT", "EXISTS": 409
        case "NOT_FOUND", "ZONE_NOT_FOUND": 404
        case "QUOTA_EXCEEDED", "LIMIT_EXCEEDED": 413
        case "THROTTLED": 429
        case "TRY_AGAIN_LATER": 503
        case "VALIDATING_REFERENCE_ERROR": 412
        case "CHANGE_TOKEN_EXPIRED": 410
        case "INTERNAL_ERROR": 500
        default: 400
        }
    }

    /// How a CloudNotes error is written.
    public init(_ error: CloudError, uuid: String, recordName: String? = nil) {
        let (code, retry): (String, Double?) = switch error {
        case .serverRecordChanged, .zoneChanged: ("CONFLICT", nil)
        case .zoneNotFound: ("ZONE_NOT_FOUND", nil)
        case .unknownItem, .unknownAccount, .unknownShare, .participantNeedsVerification: ("NOT_FOUND", nil)
        case .permissionFailure, .participantNotInvited: ("ACCESS_DENIED", nil)
        case .alreadyShared: ("EXISTS", nil)
        case .tooManyParticipants, .limitExceeded: ("LIMIT_EXCEEDED", nil)
        case .changeTokenExpired: ("CHANGE_TOKEN_EXPIRED", nil)
        case .partialFailure, .invalidArguments: ("BAD_REQUEST", nil)
        case .batchRequestFailed: ("ATOMIC_ERROR", nil)
        case .quotaExceeded: ("QUOTA_EXCEEDED", nil)
        case .requestRateLimited(let t): ("THROTTLED", t)
        case .networkUnavailable, .networkFailure, .serviceUnavailable, .zoneBusy: ("TRY_AGAIN_LATER", error.retryAfter)
        case .storage: ("INTERNAL_ERROR", nil)
        case .notAuthenticated: ("AUTHENTICATION_FAILED", nil)
        case .untrustedServer: ("TRY_AGAIN_LATER", error.retryAfter)  // (a client's own; no server sends it)
        }
        self.init(uuid: uuid, serverErrorCode: code, reason: error.description, retryAfter: retry)
        self.recordName = recordName
        cloudnotesCode = error.code
        switch error {
        case .serverRecordChanged(let server):
            serverRecord = WireRecord(server)
            self.recordName = recordName ?? server.id.name
        case .zoneNotFound(let zone), .zoneChanged(let zone): zoneID = WireZoneID(zone)
        case .unknownItem(let id), .alreadyShared(let id):
            self.recordName = id.name
            zoneID = WireZoneID(id.zone)
        case .tooManyParticipants(let limit): self.limit = limit
        case .unknownAccount(let words), .permissionFailure(let words), .participantNeedsVerification(let words),
             .participantNotInvited(let words), .limitExceeded(let words), .invalidArguments(let words), .storage(let words),
             .notAuthenticated(let words):
            detail = words
        default: break
        }
    }

    /// The CloudNotes error this is; Apple's codes without ours become the nearest one.
    public var cloudError: CloudError {
        let why = reason ?? serverErrorCode
        let detail = self.detail ?? why
        switch cloudnotesCode ?? "" {
        case "serverRecordChanged":
            // (A server record that does not decode: the conflict is still said, without the record to merge.)
            if let serverRecord, let record = try? serverRecord.stored(in: zoneID?.zoneID ?? ZoneID(name: ZoneID.defaultName)) {
                return .serverRecordChanged(server: record)
            }
        case "zoneNotFound": if let zoneID { return .zoneNotFound(zoneID.zoneID) }
        case "zoneChanged": if let zoneID { return .zoneChanged(zoneID.zoneID) }
        case "unknownItem":
            if let recordName { return .unknownItem(RecordID(name: recordName, zone: zoneID?.zoneID ?? ZoneID(name: ZoneID.defaultName))) }
        case "unknownAccount": return .unknownAccount(detail)
        case "permissionFailure": return .permissionFailure(detail)
        case "participantNeedsVerification": return .participantNeedsVerification(detail)
        case "participantNotInvited": return .participantNotInvited(detail)
        case "alreadyShared": if let recordName, let zoneID { return .alreadyShared(RecordID(name: recordName, zone: zoneID.zoneID)) }
        case "unknownShare": return .unknownShare
        case "tooManyParticipants": if let limit { return .tooManyParticipants(limit: limit) }
        case "changeTokenExpired": return .changeTokenExpired
        case "batchRequestFailed": return .batchRequestFailed
        case "limitExceeded": return .limitExceeded(detail)
        case "quotaExceeded": return .quotaExceeded
        case "invalidArguments": return .invalidArguments(detail)
        case "networkUnavailable": return .networkUnavailable
        case "networkFailure": return .networkFailure
        case "zoneBusy": return .zoneBusy(retryAfter: retryAfter ?? 1)
        case "storage": return .storage(detail)
        case "notAuthenticated": return .notAuthenticated(detail)
        default: break
        }
        switch serverErrorCode {
        case "ZONE_NOT_FOUND": return .zoneNotFound(zoneID?.zoneID ?? ZoneID(name: ZoneID.defaultName))
        case "NOT_FOUND": return recordName.map { .unknownItem(RecordID(name: $0, zone: zoneID?.zoneID ?? ZoneID(name: ZoneID.defaultName))) } ?? .invalidArguments(why)
        case "ACCESS_DENIED": return .permissionFailure(why)
        case "AUTHENTICATION_FAILED", "AUTHENTICATION_REQUIRED":
            return .notAuthenticated("the server did not accept this device (signed out, revoked, or its clock is more than 5 minutes off); "
                                     + "cloudnotes sign-in enrols it again")
        case "ATOMIC_ERROR": return .batchRequestFailed
        case "QUOTA_EXCEEDED": return .quotaExceeded
        case "LIMIT_EXCEEDED": return .limitExceeded(why)
        case "CHANGE_TOKEN_EXPIRED": return .changeTokenExpired
        case "THROTTLED": return .requestRateLimited(retryAfter: retryAfter ?? 1)
        case "TRY_AGAIN_LATER": return .serviceUnavailable(retryAfter: retryAfter ?? 1)
        case "INTERNAL_ERROR": return .storage(why)
        default: return .invalidArguments(why)
        }
    }
}

extension WireError: JSONConvertible {
    public init(json: JSON) throws(WireFormatError) {
        let object = try json.object("an error")
        uuid = try object.string("uuid")
        serverErrorCode = try object.requiredString("serverErrorCode")
        reason = try object.string("reason")
        retryAfter = try object.double("retryAfter")
        redirectURL = try object.string("redirectURL")
        recordName = try object.string("recordName")
        zoneID = try object.value("zoneID")
        cloudnotesCode = try object.string("cloudnotesCode")
        serverRecord = try object.value("serverRecord")
        limit = try object.int("limit").map(Int.init)
        detail = try object.string("detail")
    }

    public var json: JSON {
        var object = JSONObject()
        object.add("uuid", uuid)
        object.add("serverErrorCode", serverErrorCode)
        object.add("reason", reason)
        object.add("retryAfter", retryAfter)
        object.add("redirectURL", redirectURL)
        object.add("recordName", recordName)
        object.add("zoneID", zoneID)
        object.add("cloudnotesCode", cloudnotesCode)
        object.add("serverRecord", serverRecord)
        object.add("limit", limit.map(Int64.init))
        object.add("detail", detail)
        return .object(object)
    }
}
