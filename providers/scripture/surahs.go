package scripture

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// surah is one of the 114 surahs: its transliterated name (Quran.com's name_simple) and its number
// of ayahs in the Hafs numbering Quran.com uses (6,236 in all).
type surah struct {
	Name  string
	Ayahs int
}

// surahs is indexed by surah number minus one.
var surahs = [114]surah{
	{"Al-Fatihah", 7}, {"Al-Baqarah", 286}, {"Ali 'Imran", 200}, {"An-Nisa", 176}, {"Al-Ma'idah", 120},
	{"Al-An'am", 165}, {"Al-A'raf", 206}, {"Al-Anfal", 75}, {"At-Tawbah", 129}, {"Yunus", 109},
	{"Hud", 123}, {"Yusuf", 111}, {"Ar-Ra'd", 43}, {"Ibrahim", 52}, {"Al-Hijr", 99},
	{"An-Nahl", 128}, {"Al-Isra", 111}, {"Al-Kahf", 110}, {"Maryam", 98}, {"Taha", 135},
	{"Al-Anbya", 112}, {"Al-Hajj", 78}, {"Al-Mu'minun", 118}, {"An-Nur", 64}, {"Al-Furqan", 77},
	{"Ash-Shu'ara", 227}, {"An-Naml", 93}, {"Al-Qasas", 88}, {"Al-'Ankabut", 69}, {"Ar-Rum", 60},
	{"Luqman", 34}, {"As-Sajdah", 30}, {"Al-Ahzab", 73}, {"Saba", 54}, {"Fatir", 45},
	{"Ya-Sin", 83}, {"As-Saffat", 182}, {"Sad", 88}, {"Az-Zumar", 75}, {"Ghafir", 85},
	{"Fussilat", 54}, {"Ash-Shuraa", 53}, {"Az-Zukhruf", 89}, {"Ad-Dukhan", 59}, {"Al-Jathiyah", 37},
	{"Al-Ahqaf", 35}, {"Muhammad", 38}, {"Al-Fath", 29}, {"Al-Hujurat", 18}, {"Qaf", 45},
	{"Adh-Dhariyat", 60}, {"At-Tur", 49}, {"An-Najm", 62}, {"Al-Qamar", 55}, {"Ar-Rahman", 78},
	{"Al-Waqi'ah", 96}, {"Al-Hadid", 29}, {"Al-Mujadila", 22}, {"Al-Hashr", 24}, {"Al-Mumtahanah", 13},
	{"As-Saf", 14}, {"Al-Jumu'ah", 11}, {"Al-Munafiqun", 11}, {"At-Taghabun", 18}, {"At-Talaq", 12},
	{"At-Tahrim", 12}, {"Al-Mulk", 30}, {"Al-Qalam", 52}, {"Al-Haqqah", 52}, {"Al-Ma'arij", 44},
	{"Nuh", 28}, {"Al-Jinn", 28}, {"Al-Muzzammil", 20}, {"Al-Muddaththir", 56}, {"Al-Qiyamah", 40},
	{"Al-Insan", 31}, {"Al-Mursalat", 50}, {"An-Naba", 40}, {"An-Nazi'at", 46}, {"'Abasa", 42},
	{"At-Takwir", 29}, {"Al-Infitar", 19}, {"Al-Mutaffifin", 36}, {"Al-Inshiqaq", 25}, {"Al-Buruj", 22},
	{"At-Tariq", 17}, {"Al-A'la", 19}, {"Al-Ghashiyah", 26}, {"Al-Fajr", 30}, {"Al-Balad", 20},
	{"Ash-Shams", 15}, {"Al-Layl", 21}, {"Ad-Duhaa", 11}, {"Ash-Sharh", 8}, {"At-Tin", 8},
	{"Al-'Alaq", 19}, {"Al-Qadr", 5}, {"Al-Bayyinah", 8}, {"Az-Zalzalah", 8}, {"Al-'Adiyat", 11},
	{"Al-Qari'ah", 11}, {"At-Takathur", 8}, {"Al-'Asr", 3}, {"Al-Humazah", 9}, {"Al-Fil", 5},
	{"Quraysh", 4}, {"Al-Ma'un", 7}, {"Al-Kawthar", 3}, {"Al-Kafirun", 6}, {"An-Nasr", 3},
	{"Al-Masad", 5}, {"Al-Ikhlas", 4}, {"Al-Falaq", 5}, {"An-Nas", 6},
}

// surahInfo returns the surah with number n (1..114).
func surahInfo(n int) (surah, bool) {
	if n < 1 || n > len(surahs) {
		return surah{}, false
	}
	return surahs[n-1], true
}

// quranRef is a parsed Quran reference: ayahs From..To of one surah.
type quranRef struct {
	Surah int
	From  int
	To    int
	Whole bool // the reference named the surah alone
}

func (r quranRef) String() string {
	switch {
	case r.Whole:
		return strconv.Itoa(r.Surah)
	case r.From == r.To:
		return fmt.Sprintf("%d:%d", r.Surah, r.From)
	}
	return fmt.Sprintf("%d:%d-%d", r.Surah, r.From, r.To)
}

// quranRefPattern is "surah", "surah:ayah" or "surah:ayah-ayah".
var quranRefPattern = regexp.MustCompile(`^(\d+)(?:\s*:\s*(\d+)(?:\s*-\s*(\d+))?)?$`)

const quranRefForms = `use "surah", "surah:ayah" or "surah:ayah-ayah" with numbers (for example "1", "2:255", "2:255-257")`

// parseQuranRef parses "surah:ayah", "surah:ayah-ayah" and "surah", checking the surah (1..114) and
// the ayahs against the surah's ayah count.
func parseQuranRef(s string) (quranRef, error) {
	in := strings.TrimSpace(s)
	in = strings.NewReplacer("\u2013", "-", "\u2014", "-", "\u2012", "-", "\u2010", "-").Replace(in)
	m := quranRefPattern.FindStringSubmatch(in)
	if m == nil {
		return quranRef{}, refErrorf("the reference %q is not a Quran reference; %s", s, quranRefForms)
	}
	nums := make([]int, 3)
	for i, g := range m[1:] {
		if g == "" {
			continue
		}
		n, err := strconv.Atoi(g)
		if err != nil || n > 9999 {
			return quranRef{}, refErrorf("%q is not a valid surah or ayah number in %q", g, s)
		}
		nums[i] = n
	}
	info, ok := surahInfo(nums[0])
	if !ok {
		return quranRef{}, refErrorf("surah %d does not exist; surahs are numbered 1 to 114", nums[0])
	}
	r := quranRef{Surah: nums[0]}
	switch {
	case m[2] == "":
		r.From, r.To, r.Whole = 1, info.Ayahs, true
		return r, nil
	case m[3] == "":
		r.From, r.To = nums[1], nums[1]
	default:
		r.From, r.To = nums[1], nums[2]
	}
	for _, a := range []int{r.From, r.To} {
		if a < 1 || a > info.Ayahs {
			return quranRef{}, refErrorf("surah %d (%s) has %d ayahs; ayah %d does not exist", r.Surah, info.Name, info.Ayahs, a)
		}
	}
	if r.To < r.From {
		return quranRef{}, refErrorf("the range in %q ends before it starts", s)
	}
	return r, nil
}
