import Foundation
import Testing
@testable import LandingPages

@Suite("LandingPages: public/ compiled into the binary")
struct EmbeddedPublicTests {
    @Test("the embedded tree is public/ byte for byte (run scripts/embed-public.py after editing public/)")
    func noDrift() throws {
        let onDisk = try AssetFiles().overlaid(directory: LP.publicDir, setting: "public")
        let embedded = AssetFiles.embedded
        let missing = Set(onDisk.files.keys).subtracting(embedded.files.keys).sorted()
        let extra = Set(embedded.files.keys).subtracting(onDisk.files.keys).sorted()
        #expect(missing.isEmpty, "in public/ but not embedded: \(missing) — run scripts/embed-public.py")
        #expect(extra.isEmpty, "embedded but no longer in public/: \(extra) — run scripts/embed-public.py")
        for (path, bytes) in onDisk.files where embedded.files[path] != nil {
            #expect(embedded.files[path] == bytes, "public/\(path) changed — run scripts/embed-public.py")
        }
        #expect(embedded.files["templates/landing.html"] != nil && embedded.files["locales/en.json"] != nil)
    }

    @Test("a folder that does not exist is an error naming it and the setting")
    func missingFolder() {
        #expect {
            _ = try AssetFiles.embedded.overlaid(directory: "/nonexistent/linkwell-public", setting: "server.publicDir")
        } throws: { error in
            let e = error as! LandingTemplateError
            return e.file == "/nonexistent/linkwell-public" && e.message.contains("server.publicDir")
        }
    }
}
