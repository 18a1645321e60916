import ArgumentParser

/// `disklru verify DIR`: the journal against the files; exits 1 when anything is wrong.
struct VerifyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Check the journal against the files: missing or wrongly sized value files, orphaned value files, "
            + "DIRTY entries, a torn last line.",
        discussion: "Prints one line per finding, starting with its kind (torn, dirty, missing, length, notfile, "
            + "orphan, badkey are problems; backup, leftover, phantom, foreign are notes). Exits 1 if there is a problem.")

    @OptionGroup var location: DirectoryArgument

    func run() throws {
        let cache = try DiskLruInspect.load(location.directory)
        let check = CacheCheck(cache)
        for finding in check.findings {
            print("\(finding.isProblem ? "problem" : "note"): \(finding.kind): \(finding.detail)")
        }
        let problems = check.problems.count
        let entries = cache.scan.entries.filter { $0.state == .clean }.count
        if problems == 0 {
            print("ok: \(entries) entries; journal and files agree")
        } else {
            print("\(problems) problem\(problems == 1 ? "" : "s") (\(entries) published entries)")
            throw ExitCode(1)
        }
    }
}
