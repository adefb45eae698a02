import Cloud
@testable import CloudWire
import Foundation
import Testing

@Suite struct WireErrorTests {
    static let zone = ZoneID(name: "Notes", owner: "_o")
    static var server: Record {
        var record = Record(type: "Post", id: RecordID(name: "p1", zone: zone))
        record["title"] = .string("theirs")
        record.markClean()
        record.restoreSystemFields(SystemFields(changeTag: "t2", createdAt: Date(timeIntervalSince1970: 1), createdBy: "_o",
                                                modifiedAt: Date(timeIntervalSince1970: 2), modifiedBy: "_o"))
        return record
    }

    static let everyError: [CloudError] = [
        .serverRecordChanged(server: server), .zoneNotFound(zone), .unknownItem(RecordID(name: "p1", zone: zone)),
        .unknownAccount("zed"), .permissionFailure("read only"), .participantNeedsVerification("a@b"),
        .participantNotInvited("no"), .alreadyShared(RecordID(name: "p1", zone: zone)), .unknownShare,
        .tooManyParticipants(limit: 100), .changeTokenExpired, .batchRequestFailed, .limitExceeded("too big"),
        .quotaExceeded, .invalidArguments("bad"), .networkUnavailable, .networkFailure,
        .serviceUnavailable(retryAfter: 3), .requestRateLimited(retryAfter: 2.5), .zoneBusy(retryAfter: 1.5), .storage("disk"),
        .notAuthenticated("revoked"),
    ]

    @Test(arguments: everyError)
    func everyErrorComesBackAsItWent(_ error: CloudError) throws {
        let wire = WireError(error, uuid: "u1")
        let back = try JSONDecoder().decode(WireError.self, from: JSONEncoder().encode(wire))
        #expect(back.cloudError == error)
        #expect(back.cloudError.retryAfter == error.retryAfter)
    }

    @Test func applesCodesAndStatusesAreUsed() {
        #expect(WireError(.serverRecordChanged(server: Self.server), uuid: "u").serverErrorCode == "CONFLICT")
        #expect(WireError(.zoneNotFound(Self.zone), uuid: "u").httpStatus == 404)
        #expect(WireError(.requestRateLimited(retryAfter: 2), uuid: "u").httpStatus == 429)
        #expect(WireError(.serviceUnavailable(retryAfter: 2), uuid: "u").serverErrorCode == "TRY_AGAIN_LATER")
        #expect(WireError.authenticationFailed(uuid: "u").httpStatus == 401)
        #expect(WireError(.permissionFailure("x"), uuid: "u").httpStatus == 403)
    }

    /// A client that is not CloudNotes sends Apple's code alone: it still reads as the nearest error.
    @Test func anAppleErrorWithoutOurKeysReadsAsTheNearestOne() throws {
        let body = #"{"uuid":"u","serverErrorCode":"THROTTLED","reason":"slow down","retryAfter":4}"#
        let error = try JSONDecoder().decode(WireError.self, from: Data(body.utf8)).cloudError
        #expect(error == .requestRateLimited(retryAfter: 4))
    }
}
