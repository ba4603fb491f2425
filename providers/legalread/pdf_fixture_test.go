package legalread

import (
	"bytes"
	"flag"
	"os"
	"reflect"
	"testing"
	"time"

	"github.com/go-pdf/fpdf"
)

// reportsPage is one page of a U.S. Reports-like PDF built for the tests: running head lines
// (left and right parts on one baseline, as a scanned page's text layer has them) and body
// paragraphs.
type reportsPage struct {
	head [][2]string // each line: left part, right part ("" for none)
	body []string
}

// buildReportsPDF lays the pages out with the standard Times font, one text object per line,
// as a PDF writer does; the tests read it back with the package's PDF text reader.
func buildReportsPDF(tb testing.TB, pages []reportsPage) []byte {
	tb.Helper()
	doc := fpdf.New("P", "pt", "Letter", "")
	stamp := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	doc.SetCreationDate(stamp)
	doc.SetModificationDate(stamp)
	doc.SetCompression(true)
	doc.SetAutoPageBreak(false, 0)
	doc.SetCatalogSort(true)
	for _, p := range pages {
		doc.AddPage()
		doc.SetFont("Times", "", 10)
		y := 60.0
		for _, h := range p.head {
			if h[0] != "" {
				doc.Text(72, y, h[0])
			}
			if h[1] != "" {
				doc.Text(300, y, h[1])
			}
			y += 14
		}
		y += 10
		for _, para := range p.body {
			for _, line := range doc.SplitText(para, 460) {
				doc.Text(72, y, line)
				y += 13
			}
			y += 6
		}
	}
	var b bytes.Buffer
	if err := doc.Output(&b); err != nil {
		tb.Fatal(err)
	}
	return b.Bytes()
}

// olmsteadPages is the start of Olmstead v. United States, 277 U.S. 438, as the sandbox serves
// it: PDF pages 1 to 4 print the pages 438 to 441 (the text is an abridged excerpt).
var olmsteadPages = []reportsPage{
	{
		head: [][2]string{{"438", "OCTOBER TERM, 1927."}, {"Syllabus.", "277 U. S."}},
		body: []string{
			"OLMSTEAD ET AL. v. UNITED STATES. GREEN ET AL. v. SAME. McINNIS v. SAME.",
			"CERTIORARI TO THE CIRCUIT COURT OF APPEALS FOR THE NINTH CIRCUIT.",
			"Nos. 493, 532 and 533. Argued February 20, 21, 1928. Decided June 4, 1928.",
			"1. Use in evidence in a criminal trial in a federal court of an incriminating telephone conversation voluntarily conducted by the accused and secretly overheard from a tapped wire by a government officer does not compel the accused to be a witness against himself in violation of the Fifth Amendment. P. 462.",
			"2. Evidence of a conspiracy to violate the Prohibition Act was obtained by government officers by secretly tapping the lines of a telephone company connected with the chief office and some of the residences of the conspirators, and thus clandestinely overhearing and recording their telephonic conversations concerning the conspiracy and in aid of its execution. The tapping connections were made in the basement of a large office building and on public streets, and no trespass was committed upon any property of the defendants. Held, that the obtaining of the evidence and its use at the trial did not violate the Fourth Amendment. Pp. 455, 464.",
		},
	},
	{
		head: [][2]string{{"", "OLMSTEAD v. UNITED STATES. 439"}, {"438", "Syllabus."}},
		body: []string{
			"3. The principle of liberal construction applied to the Amendment to effect its purpose in the interest of liberty, will not justify enlarging it beyond the possible practical meaning of \"persons, houses, papers, and effects,\" or so applying \"searches and seizures\" as to forbid hearing or sight. P. 465.",
			"4. The policy of protecting the secrecy of telephone messages by making them, when intercepted, inadmissible as evidence in federal criminal trials, may be adopted by Congress through legislation, but it is not for the courts to adopt it by attributing an enlarged and unusual meaning to the Fourth Amendment. P. 465.",
			"5. A statute of Washington, adopted in 1909, making the interception of telephone messages a misdemeanor, cannot affect the rules of evidence applicable in federal courts. P. 466.",
			"6. The common law rule that the admissibility of evidence is not affected by the illegality of the means by which it was obtained, applies in the federal courts, save as modified by the Fourth and Fifth Amendments. P. 467.",
		},
	},
	{
		head: [][2]string{{"440", "OCTOBER TERM, 1927."}, {"Argument for Petitioners.", "277 U. S."}},
		body: []string{
			"19 F. (2d) 842, 850, affirmed.",
			"CERTIORARI, 276 U. S. 609, to judgments of the Circuit Court of Appeals which affirmed convictions of conspiracy to violate the National Prohibition Act.",
			"Mr. John F. Dore, with whom Messrs. Frank R. Jeffrey, Arthur E. Griffin, and Otto B. Rupp were on the brief, for petitioners in No. 493.",
			"The wire tapping operations of the prohibition agents were a search and seizure of the messages of the defendants within the meaning of the Fourth Amendment, and the use of the evidence so obtained compelled the defendants to be witnesses against themselves.",
		},
	},
	{
		head: [][2]string{{"", "OLMSTEAD v. UNITED STATES. 441"}, {"438", "Argument for Petitioners."}},
		body: []string{
			"A telephone message is as much within the protection of the Amendment as a sealed letter in the mails. The sender and the receiver of a message over a private line have the same right to its privacy, and an officer who intercepts it without a warrant acts as unlawfully as one who opens a letter.",
			"The State of Washington has made the interception of telephone messages a crime; evidence obtained by federal officers through the commission of that crime should not be received by a federal court.",
		},
	},
}

// TestSandboxPDF keeps sandbox/usrep277438.pdf in step with olmsteadPages: -update rewrites it;
// otherwise its text layer must read back exactly as a freshly built one.
func TestSandboxPDF(t *testing.T) {
	fresh := buildReportsPDF(t, olmsteadPages)
	const path = "sandbox/usrep277438.pdf"
	if f := flag.Lookup("update"); f != nil && f.Value.String() == "true" {
		if err := os.WriteFile(path, fresh, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	shipped, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%s: %v (run go test -run TestSandboxPDF -update)", path, err)
	}
	want, err := pdfText(fresh)
	if err != nil {
		t.Fatal(err)
	}
	got, err := pdfText(shipped)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%s reads as %+v, want %+v (run go test -run TestSandboxPDF -update)", path, got, want)
	}
}
