package sula

import "strings"

// cvcWords are the consonant–vowel–consonant syllables (over Labels' letters) that are words
// of American English (388 of them, as Debian's wamerican word list has them): Labels
// never picks one, since a label should carry no meaning of its own.
const cvcWords = " " +
	"bad bag bah ban bar bat bed beg bet bib bid big bin bit bob bog bop bot bow box " +
	"bud bug bum bun bur bus but cab cad cal cam can cap car cat caw cis cob cod cog " +
	"col con cop cot cow cox cub cud cum cup cur cut dab dad dam deb den dew did dig " +
	"dim din dip dis doc dog don dos dot doz dub dud dug duh dun fad fag fan far fat " +
	"fax fed fem fen fer few fez fib fig fin fir fit fix fob fog fop for fox fum fun " +
	"fur gab gad gag gal gap gas gel gem gen get gig gin gob god got gov gum gun gut " +
	"had hag hah ham has hat haw hem hen hep her hes hew hex hid him hip his hit hob " +
	"hoc hod hog hop hos hot how hub hug huh hum hut jab jag jam jar jaw jet jib jig " +
	"job jog jot jug jut keg ken kid kin kit lab lad lag lam lap lat law lax led leg " +
	"let lib lid lip lit lix lob log lop lot low lox lug mad man map mar mas mat maw " +
	"max med meg meh men mes met mew mid mil min mix mob mod mom mop mos mow mud mug " +
	"mum nab nag nap neg net new nib nil nip nit nix nod non nor nos not now nub nun " +
	"nut pad pal pan pap par pas pat paw peg pen pep per pet pew pig pin pip pis pit " +
	"pod pol pop pot pox pub pug pun pup pus put rag ram ran rap rat raw red ref rep " +
	"rev rib rid rig rim rip rob rod rot row rub rug rum run rut sac sad sag sap sat " +
	"saw sax sec set sew sex sic sim sin sip sir sis sit six sob sod sol son sop sos " +
	"sot sow sox sub sum sun sup tab tad tag tam tan tap tar tat tax tel ten tic tin " +
	"tip tit tog tom ton top tor tot tow tub tug tun tux van var vat vet vex vim viz " +
	"vol vow wad wag wan war was wax web wed wen wet wig win wit wiz wok won wot wow " +
	"xiv xix xor zap zed zen zip zit "

// IsWord reports whether w is one of the consonant–vowel–consonant English words that
// Labels skips.
func IsWord(w string) bool {
	return len(w) == 3 && strings.Contains(cvcWords, " "+w+" ")
}
