import Cloud
import Foundation
import Testing

@Suite struct FieldAssignmentTests {
    @Test(arguments: [
        ("title=Hello=World", FieldAssignment(key: "title", value: .plain(.string("Hello=World")))),
        ("title=", FieldAssignment(key: "title", value: .plain(.string("")))),
        ("n:int=-3", FieldAssignment(key: "n", value: .plain(.int(-3)))),
        ("x:double=1.5", FieldAssignment(key: "x", value: .plain(.double(1.5)))),
        ("ok:bool=yes", FieldAssignment(key: "ok", value: .plain(.bool(true)))),
        ("d:date=2026-11-22T10:00:00Z", FieldAssignment(key: "d", value: .plain(.date(Date(timeIntervalSince1970: 1_795_341_600))))),
        ("b:bytes=AAH/", FieldAssignment(key: "b", value: .plain(.bytes(Data([0, 1, 255]))))),
        ("p:ref=p1", FieldAssignment(key: "p", value: .plain(.reference(Reference(recordName: "p1"))))),
        ("p:ref-delete-self=p1", FieldAssignment(key: "p", value: .plain(.reference(Reference(recordName: "p1", action: .deleteSelf))))),
        ("t:list=a,,b", FieldAssignment(key: "t", value: .plain(.list([.string("a"), .string(""), .string("b")])))),
        ("t:list=", FieldAssignment(key: "t", value: .plain(.list([])))),
        ("loc:encrypted=c2VhbGVk", FieldAssignment(key: "loc", value: .encrypted(Data("sealed".utf8)))),
    ])
    func wellFormedAssignmentsParse(text: String, expected: FieldAssignment) throws {
        #expect(try FieldAssignment(parsing: text) == expected)
    }

    @Test(arguments: ["title", "=x", "1a=x", "a b=x", "ti-tle=x", "n:int=1.5", "x:double=nan", "ok:bool=maybe",
                      "d:date=yesterday", "b:bytes=!!", "p:ref=", "q:colour=red", "é=x"])
    func malformedAssignmentsAreRefusedWithOneLine(text: String) {
        #expect {
            try FieldAssignment(parsing: text)
        } throws: { error in
            (error as? CloudError)?.description.contains("\n") == false
        }
    }
}
