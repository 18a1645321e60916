import Testing
import Processing

@Suite struct CanonicalTests {
    @Test func spellingsOfOneImageShareOneCanonicalForm() throws {
        let spellings = [
            "rs:fill:300:200/g:sm",
            "resize:fill:300:200:0/gravity:sm/dpr:1",
            "g:sm/rt:fill/w:300/h:200",
            "s:300:200/resizing_type:fill/g:no/g:sm/z:1/cb:v7",
            "w:100/rs:fill:300:200/g:sm/exp:4102444800/fn:card/att:1/el:0/ex:0",
            "rs:fill::200/s:300/g:sm/c:0:0/pd:0/bg:ffffff/bg:",
        ]
        let forms = try Set(spellings.map { try ProcessingOptions(parsing: $0).canonical })
        #expect(forms == ["rt:fill/w:300/h:200/g:sm"])
    }

    @Test func aPresetCountsForWhatItSets() throws {
        let presets = try Presets(list: "card=rs:fill:300:200/g:sm")
        #expect(try ProcessingOptions(parsing: "pr:card", presets: presets).canonical
            == ProcessingOptions(parsing: "rs:fill:300:200/g:sm").canonical)
    }

    @Test func differentMeaningsGiveDifferentForms() throws {
        let lists = ["", "w:300", "h:300", "rt:fill/w:300", "rt:force/w:300", "w:300/dpr:2", "w:300/z:2",
                     "w:300/z:2:1", "w:300/el:1", "w:300/ex:1", "w:300/ex:1:so", "w:300/exar:1", "g:so",
                     "g:so:0:10", "g:fp:0.5:0.2", "g:entropy", "c:10:10", "c:10:10:so", "pd:1", "ar:0", "rot:90",
                     "bg:000000", "bl:1", "sh:1", "pix:2", "q:50", "fq:webp:50", "mb:100", "f:png", "sm:0", "sm:1",
                     "kcr:1", "scp:1", "skp:png", "raw:1", "mw:10", "mh:10", "da:1"]
        let forms = try lists.map { try ProcessingOptions(parsing: $0).canonical }
        #expect(Set(forms).count == lists.count)
    }

    @Test func theCanonicalFormParsesBackToItself() throws {
        for list in ["rs:fill-down:300:200:1:1:soea:3:0.5/g:fp:0.25:0.75/c:0.5:100:we/pd:1:2:3/z:1.5:2/dpr:1.25",
                     "bg:f80/fq:webp:70:avif:60/skp:png:gif/sm:0/kcr:1/scp:0/q:90/mb:1000/f:avif/ar:0/rot:180",
                     "exar:1:fp:0.1:0.9/mw:10/mh:20/bl:0.5/sh:2/pix:4/raw:1/el:1"] {
            let original = try ProcessingOptions(parsing: list)
            let again = try ProcessingOptions(parsing: original.canonical)
            #expect(again.canonical == original.canonical)
            #expect(again.geometry == original.geometry)
        }
    }
}
