package legalread

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/go-pdf/fpdf"

	"github.com/capgate/capgate/providers"
)

// sandboxCase is the synthetic case a U.S. Reports item of the sandbox holds: its volume and
// first page are the item id's, its term follows the volume (volume 277 was the 1927 term, about
// three volumes a year), its name is made from the id.
type sandboxCase struct {
	item         string
	volume, page int
	year         int
	name         string
}

func (c sandboxCase) cite() string { return fmt.Sprintf("%d U.S. %d", c.volume, c.page) }

// sandboxCaseOf reads an item id usrepVVVPPP; ok is false for the recorded item and malformed ids.
func sandboxCaseOf(item string) (sandboxCase, bool) {
	if item == recordedItem || len(item) != len("usrep")+6 || !strings.HasPrefix(item, "usrep") {
		return sandboxCase{}, false
	}
	vol, err1 := strconv.Atoi(item[5:8])
	page, err2 := strconv.Atoi(item[8:])
	if err1 != nil || err2 != nil || vol < 1 || page < 1 {
		return sandboxCase{}, false
	}
	year := min(max(1928+(vol-277)/3, 1790), time.Now().UTC().Year())
	party := strings.Fields(providers.SynthPerson("usreports", vol*1000+page))
	return sandboxCase{item: item, volume: vol, page: page, year: year,
		name: party[len(party)-1] + " v. United States"}, true
}

// sandboxPDFs holds the scans made, by item (the same item always gives the same bytes): laying
// a scan out costs milliseconds, so a test caller reading one item section by section, or its
// detail lookups, make it once. Bounded: emptied when full.
var sandboxPDFs = struct {
	sync.Mutex
	m map[string][]byte
}{m: map[string][]byte{}}

const sandboxPDFCap = 256

func (c sandboxCase) cachedPDF() ([]byte, error) {
	sandboxPDFs.Lock()
	b, ok := sandboxPDFs.m[c.item]
	sandboxPDFs.Unlock()
	if ok {
		return b, nil
	}
	b, err := c.pdf()
	if err != nil {
		return nil, err
	}
	sandboxPDFs.Lock()
	if len(sandboxPDFs.m) >= sandboxPDFCap {
		sandboxPDFs.m = map[string][]byte{}
	}
	sandboxPDFs.m[c.item] = b
	sandboxPDFs.Unlock()
	return b, nil
}

// pdf lays out four pages of the case as a U.S. Reports scan's text layer reads: running heads
// with the printed page, the term and the volume, then paragraphs saying the text is synthetic.
func (c sandboxCase) pdf() ([]byte, error) {
	doc := fpdf.New("P", "pt", "Letter", "")
	stamp := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	doc.SetCreationDate(stamp)
	doc.SetModificationDate(stamp)
	doc.SetCompression(true)
	doc.SetAutoPageBreak(false, 0)
	doc.SetCatalogSort(true)
	upper := strings.ToUpper(c.name)
	term := fmt.Sprintf("OCTOBER TERM, %d.", c.year-1)
	vol := fmt.Sprintf("%d U. S.", c.volume)
	for k := range 4 {
		printed := strconv.Itoa(c.page + k)
		var head [][2]string
		if k%2 == 0 {
			head = [][2]string{{printed, term}, {[]string{"Syllabus.", "Opinion of the Court."}[k/2], vol}}
		} else {
			head = [][2]string{{"", upper + ". " + printed}, {strconv.Itoa(c.page), []string{"Syllabus.", "Opinion of the Court."}[k/2]}}
		}
		body := []string{
			fmt.Sprintf("%s, %s (%d), page %s: a synthetic test-mode text. The sandbox does not hold this opinion's real text; a live key reads the Library of Congress scan.", c.name, c.cite(), c.year, printed),
			fmt.Sprintf("Paragraph %d of the sandbox's reading of %s. Printed page %s of volume %d of the United States Reports.", k+1, c.item, printed, c.volume),
		}
		if k == 0 {
			body = append([]string{upper + ".", fmt.Sprintf("No. %d. Decided %d.", 1+c.page%90, c.year)}, body...)
		}
		doc.AddPage()
		doc.SetFont("Times", "", 10)
		y := 60.0
		for _, h := range head {
			if h[0] != "" {
				doc.Text(72, y, h[0])
			}
			if h[1] != "" {
				doc.Text(300, y, h[1])
			}
			y += 14
		}
		y += 10
		for _, para := range body {
			for _, line := range doc.SplitText(para, 460) {
				doc.Text(72, y, line)
				y += 13
			}
			y += 6
		}
	}
	var b bytes.Buffer
	if err := doc.Output(&b); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}
