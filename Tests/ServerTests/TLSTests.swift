import Cloud
@testable import CloudClient
import Crypto
import Foundation
import Testing
import TestSupport

/// HTTPS: the server's certificate is always verified. One no CA vouches for is refused in words (not retried
/// as a network failure); once its CA is trusted (CLOUDNOTES_CA_FILE), devices sync.
@Suite(.serialized) struct TLSTests {
    @Test func anUntrustedCertificateIsRefusedAndATrustedOneServes() throws {
        let directory = TemporaryDirectory("tls")
        let cloud = try TestStore.open(directory: directory.path("cloud"), faults: nil)
        let heather = try cloud.createAccount(name: "heather")
        let tls = try SelfSignedCertificate.make(in: directory)
        let server = try TestServer(cloud: directory.path("cloud"), tls: tls)
        #expect(server.url.scheme == "https")
        let key = P256.Signing.PrivateKey()
        let device = try cloud.enrol(code: try cloud.makeEnrolmentCode(for: heather), publicKey: key.publicKey.derRepresentation,
                                     deviceName: "heather/laptop").key
        let credentials = RemoteCloud.Credentials(keyID: device.keyID, key: key, account: heather)

        let untrusting = RemoteCloud(server: server.url, credentials: credentials, trustRoots: nil)
        #expect { try untrusting.database(.private, as: heather).allZones() } throws: { error in
            guard let error = error as? CloudError, case .untrustedServer = error else { return false }
            return "\(error)".contains("certificate could not be verified") && "\(error)".contains("CLOUDNOTES_CA_FILE")
        }

        let trusting = RemoteCloud(server: server.url, credentials: credentials, trustRoots: tls.certificate)
        try trusting.database(.private, as: heather).save(zone: ZoneID(name: "Notes"))
        #expect(try cloud.database(.private, as: heather).allZones().map(\.name) == ["Notes"])
    }
}

extension TLSTests {
    /// A server whose certificate does not verify is passed over like one that is down: the next server of the
    /// cloud answers.
    @Test func aServerWhoseCertificateDoesNotVerifyIsPassedOverForTheNext() throws {
        let directory = TemporaryDirectory("tls-two")
        let cloud = try TestStore.open(directory: directory.path("cloud"), faults: nil)
        let heather = try cloud.createAccount(name: "heather")
        let unknown = try SelfSignedCertificate.make(in: directory, name: "a"), known = try SelfSignedCertificate.make(in: directory, name: "b")
        let a = try TestServer(cloud: directory.path("cloud"), tls: unknown), b = try TestServer(cloud: directory.path("cloud"), tls: known)
        let key = P256.Signing.PrivateKey()
        let device = try cloud.enrol(code: try cloud.makeEnrolmentCode(for: heather), publicKey: key.publicKey.derRepresentation,
                                     deviceName: "heather/laptop").key
        let remote = RemoteCloud(servers: [a.url, b.url], credentials: .init(keyID: device.keyID, key: key, account: heather),
                                 trustRoots: known.certificate)
        try remote.database(.private, as: heather).save(zone: ZoneID(name: "Notes"))
        #expect(try cloud.database(.private, as: heather).allZones().map(\.name) == ["Notes"])
    }
}
