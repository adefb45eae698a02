import Foundation

/// A self-signed certificate for 127.0.0.1 (its own CA), made by `openssl` for a test's TLS server.
public enum SelfSignedCertificate {
    /// Writes `NAME-cert.pem` and `NAME-key.pem` into `directory` and returns their paths.
    public static func make(in directory: TemporaryDirectory, name: String = "server") throws -> (certificate: String, key: String) {
        let certificate = directory.path("\(name)-cert.pem").path, key = directory.path("\(name)-key.pem").path
        let openssl = Process()
        openssl.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
        openssl.arguments = ["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days", "2",
                             "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", key, "-out", certificate]
        openssl.standardOutput = FileHandle.nullDevice
        openssl.standardError = FileHandle.nullDevice
        try openssl.run()
        openssl.waitUntilExit()
        guard openssl.terminationStatus == 0 else { throw CouldNotMake() }
        return (certificate, key)
    }

    public struct CouldNotMake: Error, CustomStringConvertible {
        public var description: String { "openssl could not make a certificate" }
    }
}
