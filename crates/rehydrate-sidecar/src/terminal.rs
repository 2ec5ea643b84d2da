//! Terminal normalization: the text a terminal would finally show for a tool output written with
//! styles, carriage-return redraws, erased lines and cursor movement (issue 17). A pure function
//! over the text, here so that the sidecar can render it again to verify a view.

use std::ops::Range;

/// The largest numeric parameter of a recognized control sequence; a larger one leaves the
/// sequence unrecognized.
const MAX_PARAM: usize = 9_999;

/// The work the grid may do beyond one step per byte of the text (padding, blanking, rows visited
/// by an erasure) is at most the text's length in bytes plus this.
const WORK_FLOOR: usize = 4_096;

const BEL: u8 = 0x07;
const BS: u8 = 0x08;
const ESC: u8 = 0x1b;

/// The text a terminal would finally show for `text`, or `None` when there is nothing to
/// normalize.
///
/// Tool outputs written for a terminal (the progress bars of cargo, npm, pip or docker, colored
/// test results) hold control sequences: styles, carriage-return redraws, erased lines, cursor
/// movement. This replays them on a grid as a terminal does (ECMA-48, *Control Functions for
/// Coded Character Sets*, and the xterm control sequences) and gives the lines the grid ends
/// with. Columns are counted in chars (Unicode scalar values), never bytes.
///
/// # The grid
///
/// The rows are the lines written so far, and a cursor (row, column) moves over them. Every
/// char takes one column (a terminal gives a wide char two columns and a combining mark none).
/// The rows written are the whole screen: the cursor stops at the first and the last row, and
/// there is no right edge (no line wraps).
///
/// - A printable char is written at the cursor, over what is there, and the cursor moves one
///   column right. Written past the end of its row, the row is first padded with blanks.
/// - `\n` moves to column 0 of the next row, adding one after the last row.
/// - `\r` moves to column 0 of its row, so `\r\n` is a line break, written as `\n`.
/// - `\x08` (backspace) moves one column left, and not before column 0.
///
/// # Control sequences
///
/// Every sequence below is consumed: none is left in the result.
///
/// | sequence | effect |
/// |---|---|
/// | `ESC [ Ps m` (SGR; `Ps` digits, `;` and `:`) | none: styles are dropped |
/// | `ESC [ ? 25 l`, `ESC [ ? 25 h` | none: the cursor is hidden, shown |
/// | `ESC ] … BEL`, `ESC ] … ESC \` (OSC) | none: window titles, hyperlinks (OSC 8: the link text between the two sequences is ordinary text and stays) |
/// | `ESC [ n A`, `ESC [ n B` (CUU, CUD) | up, down `n` rows, stopping at the first, the last row |
/// | `ESC [ n C`, `ESC [ n D` (CUF, CUB) | right, left `n` columns, stopping at column 0 |
/// | `ESC [ n G` (CHA) | to column `n`, 1-based |
/// | `ESC [ 0 K`, `1 K`, `2 K` (EL) | erase from the cursor to the end of its row, from the row's start through the cursor, the whole row |
/// | `ESC [ 0 J`, `1 J`, `2 J` (ED) | erase from the cursor to the end of the last row, from the start of the first row through the cursor, every row |
///
/// A missing parameter is the default (1 for a move, 0 for an erasure), a move of 0 is a move of
/// 1, and a parameter above 9999 leaves the sequence unrecognized. Erasing never moves the
/// cursor, and erased rows stay as empty lines (after `ESC [ 2 J` the rows written so far are
/// empty, the cursor where it was). Blanks (erased cells, padding) before a written char come out
/// as spaces, and a row's trailing blanks are dropped; spaces the text wrote are kept, trailing
/// or not.
///
/// # What passes through
///
/// Anything else is text, kept exactly, never dropped and never guessed at:
///
/// - an escape sequence not in the table, such as `ESC [ 3 ~`, `ESC ( B`, `ESC 7`, or CUP and HVP
///   (`ESC [ row ; col H`, `f`), whose rows count from the top of a screen whose height the text
///   does not say;
/// - a sequence with a parameter above 9999 (`ESC [ 99999999999 A`);
/// - a malformed one: `ESC` and the bytes that still fit the sequence's form (ECMA-48: CSI
///   parameter bytes `0x30..=0x3F`, intermediate bytes `0x20..=0x2F`, a final byte `0x40..=0x7E`;
///   an OSC string of chars that are not control chars) up to the first that does not, which is
///   then read as usual; and a sequence cut off by the end of the text (`ESC`, `ESC [ 3`);
/// - control chars other than `\n`, `\r`, backspace and `ESC`: a tab stays one char in one column
///   (no tab stops), BEL, NUL, DEL and C1 controls stay as they are.
///
/// Nothing is known of what a kept sequence does, so it is taken to do nothing: it goes at the
/// cursor, which must be at or past the end of its row, and takes a column per char. A sequence
/// cut off by the end of the text goes at the end of the result. The sequence that follows a
/// malformed one cut off by an `ESC` is kept whatever it is, so that the malformed one is still
/// cut off there in the result.
///
/// Columns after kept text no longer match a terminal's, so the function returns `None` rather
/// than guess when a char would be written into or over the kept part of a row, kept text would
/// land inside a row or be erased, or the cursor would move (backspace, CUB, CUF, CHA, CUU, CUD)
/// to or from a column past kept text in its row; `\r` and `\n` always go to an exact column 0.
///
/// # Returns
///
/// `None` when the text holds nothing to normalize: no `ESC`, no backspace and no `\r` but in
/// `\r\n` (text with Windows line ends only is left as it is), or a result that is the text
/// itself with `\r\n` written `\n`. `None` too when normalizing would mean guessing (above, or
/// a character that may not take exactly one column: CJK, emoji, combining marks), or
/// when the work beyond one step per byte of the text (padding, blanking, rows visited by ED)
/// would exceed the text's length in bytes plus 4096: callers then mint nothing.
///
/// Otherwise the final screen: its rows joined by `\n`, holding no `\r`, no backspace and none
/// of the sequences consumed; it is never longer than the text plus the padding spaces written.
/// Normalizing it again gives `None`.
///
/// # Cost
///
/// One pass over the text, each byte looked at a bounded number of times; with the work bound
/// above, time and memory are linear in the text's length.
///
/// # Panics
///
/// Never, on any input.
///
/// # Example
///
/// ```
/// use rehydrate_sidecar::normalize_terminal;
///
/// let output = "\x1b[1mBuilding\x1b[0m 1/3\r\x1b[1mBuilding\x1b[0m 3/3\n";
/// assert_eq!(normalize_terminal(output).as_deref(), Some("Building 3/3\n"));
/// assert_eq!(normalize_terminal("no control sequences\r\n"), None);
/// ```
pub fn normalize_terminal(text: &str) -> Option<String> {
    if !needs_replay(text.as_bytes()) || !(text.is_ascii() || text.chars().all(one_column)) {
        return None;
    }
    let screen = replay(text)?;
    (!same_but_line_ends(&screen, text)).then_some(screen)
}

/// Whether `c` takes exactly one column on a terminal, by a conservative list: control
/// characters (replayed, not printed), ASCII, Latin, Greek and Cyrillic letters, general
/// punctuation, arrows, box drawing, blocks and geometric shapes but the two wide ones,
/// braille (spinners) and the check and cross marks. Anything else (CJK, emoji, combining
/// marks) may take two columns or none, so a grid replay would guess where it ends.
fn one_column(c: char) -> bool {
    matches!(u32::from(c),
        0x00..=0x2FF
            | 0x370..=0x52F
            | 0x2010..=0x205E
            | 0x2190..=0x21FF
            | 0x2500..=0x25FC
            | 0x25FF
            | 0x2800..=0x28FF
            | 0x2713
            | 0x2714
            | 0x2717
            | 0x2718)
}

/// Whether `bytes` hold an `ESC`, a backspace or a `\r` not followed by `\n`.
fn needs_replay(bytes: &[u8]) -> bool {
    memchr::memchr3_iter(ESC, BS, b'\r', bytes)
        .any(|i| bytes.get(i) != Some(&b'\r') || bytes.get(i + 1) != Some(&b'\n'))
}

/// Whether `screen` is `text` with each `\r\n` written `\n`.
fn same_but_line_ends(screen: &str, text: &str) -> bool {
    let text = text.as_bytes();
    let mut rest = text
        .iter()
        .enumerate()
        .filter(|&(i, &b)| b != b'\r' || text.get(i + 1) != Some(&b'\n'))
        .map(|(_, b)| b);
    screen.as_bytes().iter().all(|b| rest.next() == Some(b)) && rest.next().is_none()
}

/// What an escape sequence is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Seq {
    /// Recognized, with no effect on the screen: dropped.
    Drop,
    /// Recognized, acting on the grid.
    Act(Action),
    /// Unrecognized, malformed or cut off: kept as text. `whole` when it is a complete sequence
    /// of ECMA-48's form, which no following byte can change.
    Keep { whole: bool },
}

/// A recognized sequence acting on the grid.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Action {
    Up(usize),
    Down(usize),
    Forward(usize),
    Back(usize),
    /// To this column, 0-based.
    Column(usize),
    EraseLine(Erase),
    EraseScreen(Erase),
}

/// The part an erasure covers, by its parameter 0, 1 or 2.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Erase {
    ToEnd,
    ToStart,
    All,
}

/// Replays `text` on a grid; `None` where that would mean guessing or exceed the work bound.
fn replay(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut screen = Screen::new(text.len().saturating_add(WORK_FLOOR));
    // A sequence cut off by the end of the text, which goes at the end of the result.
    let mut tail = "";
    // The previous sequence was malformed and cut off by the ESC at `pos`.
    let mut forced = false;
    let mut pos = 0;
    while let Some(&byte) = bytes.get(pos) {
        match byte {
            b'\n' => {
                screen.line_feed();
                pos += 1;
            }
            b'\r' => {
                screen.col = 0;
                pos += 1;
            }
            BS => {
                screen.move_col(screen.col.saturating_sub(1), true)?;
                pos += 1;
            }
            ESC => {
                let (len, seq) = parse_escape(bytes.get(pos..)?);
                let end = pos + len;
                let seq = match seq {
                    Seq::Drop | Seq::Act(_) if forced => Seq::Keep { whole: true },
                    seq => seq,
                };
                forced = false;
                match seq {
                    Seq::Drop => {}
                    Seq::Act(action) => screen.act(action)?,
                    Seq::Keep { whole } => {
                        let kept = text.get(pos..end)?;
                        if !whole && end == bytes.len() {
                            tail = kept;
                        } else {
                            forced = !whole && bytes.get(end) == Some(&ESC);
                            screen.keep(kept.chars())?;
                        }
                    }
                }
                pos = end;
            }
            _ => {
                let c = if byte.is_ascii() {
                    char::from(byte)
                } else {
                    text.get(pos..)?.chars().next()?
                };
                if c.is_control() {
                    screen.keep(std::iter::once(c))?;
                } else {
                    screen.write(c)?;
                }
                pos += c.len_utf8();
            }
        }
    }
    let mut out = screen.into_text(text.len());
    out.push_str(tail);
    Some(out)
}

/// The sequence `bytes` starts with (`bytes[0]` is `ESC`) and its length in bytes, at least 1.
fn parse_escape(bytes: &[u8]) -> (usize, Seq) {
    const WHOLE: Seq = Seq::Keep { whole: true };
    const CUT: Seq = Seq::Keep { whole: false };
    match bytes.get(1) {
        Some(b'[') => parse_csi(bytes),
        Some(b']') => parse_osc(bytes),
        // nF: intermediate bytes, then a final byte.
        Some(0x20..=0x2f) => {
            let end = 1 + run(bytes, 1, 0x20..=0x2f);
            match bytes.get(end) {
                Some(0x30..=0x7e) => (end + 1, WHOLE),
                _ => (end, CUT),
            }
        }
        // Fp, Fe, Fs: one final byte.
        Some(0x30..=0x7e) => (2, WHOLE),
        _ => (1, CUT),
    }
}

/// A CSI sequence: `ESC [`, parameter bytes, intermediate bytes, a final byte.
fn parse_csi(bytes: &[u8]) -> (usize, Seq) {
    let params_end = 2 + run(bytes, 2, 0x30..=0x3f);
    let end = params_end + run(bytes, params_end, 0x20..=0x2f);
    match bytes.get(end) {
        Some(&final_byte @ 0x40..=0x7e) => {
            let seq = match bytes.get(2..params_end) {
                Some(params) if end == params_end => csi(params, final_byte),
                _ => Seq::Keep { whole: true },
            };
            (end + 1, seq)
        }
        _ => (end, Seq::Keep { whole: false }),
    }
}

/// What a complete CSI sequence without intermediate bytes does.
fn csi(params: &[u8], final_byte: u8) -> Seq {
    let action = match final_byte {
        b'm' if params
            .split(|&b| b == b';' || b == b':')
            .all(|p| number(p, 0).is_some()) =>
        {
            return Seq::Drop;
        }
        b'h' | b'l' if params == b"?25" => return Seq::Drop,
        b'A' => number(params, 1).map(|n| Action::Up(n.max(1))),
        b'B' => number(params, 1).map(|n| Action::Down(n.max(1))),
        b'C' => number(params, 1).map(|n| Action::Forward(n.max(1))),
        b'D' => number(params, 1).map(|n| Action::Back(n.max(1))),
        b'G' => number(params, 1).map(|n| Action::Column(n.max(1) - 1)),
        b'K' => number(params, 0).and_then(erase).map(Action::EraseLine),
        b'J' => number(params, 0).and_then(erase).map(Action::EraseScreen),
        _ => None,
    };
    action.map_or(Seq::Keep { whole: true }, Seq::Act)
}

/// The value of a parameter made of ASCII digits, `default` when empty; `None` for any other
/// byte or a value above [`MAX_PARAM`].
fn number(digits: &[u8], default: usize) -> Option<usize> {
    if digits.is_empty() {
        return Some(default);
    }
    digits.iter().try_fold(0usize, |n, &b| {
        let n = n * 10 + usize::from(b.checked_sub(b'0').filter(|d| *d <= 9)?);
        (n <= MAX_PARAM).then_some(n)
    })
}

fn erase(param: usize) -> Option<Erase> {
    match param {
        0 => Some(Erase::ToEnd),
        1 => Some(Erase::ToStart),
        2 => Some(Erase::All),
        _ => None,
    }
}

/// An OSC sequence: `ESC ]`, a string of chars that are not control chars, then `BEL` or
/// `ESC \`.
fn parse_osc(bytes: &[u8]) -> (usize, Seq) {
    let mut i = 2;
    while let Some(&b) = bytes.get(i) {
        match b {
            BEL => return (i + 1, Seq::Drop),
            ESC if bytes.get(i + 1) == Some(&b'\\') => return (i + 2, Seq::Drop),
            ..0x20 | 0x7f => return (i, Seq::Keep { whole: false }),
            _ => i += 1,
        }
    }
    (i, Seq::Keep { whole: false })
}

/// How many bytes from `from` on lie in `range`.
fn run(bytes: &[u8], from: usize, range: std::ops::RangeInclusive<u8>) -> usize {
    bytes
        .iter()
        .skip(from)
        .take_while(|b| range.contains(b))
        .count()
}

/// `kept_from` of a row holding no kept text.
const NOTHING_KEPT: usize = usize::MAX;

/// One row of the grid.
#[derive(Debug)]
struct Row {
    /// `None` is a blank.
    cells: Vec<Option<char>>,
    /// The column of the row's first kept char, [`NOTHING_KEPT`] when there is none. Kept text
    /// only ever goes at the end of a row and is never erased, so the columns before this one
    /// are a terminal's, and the ones from it on are not.
    kept_from: usize,
}

impl Row {
    fn new() -> Row {
        Row {
            cells: Vec::new(),
            kept_from: NOTHING_KEPT,
        }
    }

    fn holds_kept(&self) -> bool {
        self.kept_from != NOTHING_KEPT
    }

    /// Whether `col` is the same column on a terminal: no kept text before it.
    fn exact(&self, col: usize) -> bool {
        col <= self.kept_from
    }
}

/// The grid and its cursor. Every method returning `Option` gives `None` where the replay would
/// have to guess or exceed its work bound.
struct Screen {
    /// Never empty.
    rows: Vec<Row>,
    row: usize,
    col: usize,
    /// Work done beyond one step per byte, and its bound.
    work: usize,
    budget: usize,
}

impl Screen {
    fn new(budget: usize) -> Screen {
        Screen {
            rows: vec![Row::new()],
            row: 0,
            col: 0,
            work: 0,
            budget,
        }
    }

    fn charge(&mut self, steps: usize) -> Option<()> {
        self.work = self.work.saturating_add(steps);
        (self.work <= self.budget).then_some(())
    }

    fn current(&mut self) -> Option<&mut Row> {
        self.rows.get_mut(self.row)
    }

    /// Pads the cursor's row with blanks up to the cursor.
    fn pad_to_cursor(&mut self) -> Option<()> {
        let col = self.col;
        let len = self.rows.get(self.row)?.cells.len();
        if col > len {
            self.charge(col - len)?;
            self.current()?.cells.resize(col, None);
        }
        Some(())
    }

    fn write(&mut self, c: char) -> Option<()> {
        self.pad_to_cursor()?;
        let col = self.col;
        let row = self.current()?;
        match row.cells.get_mut(col) {
            Some(_) if col >= row.kept_from => return None,
            Some(cell) => *cell = Some(c),
            None => row.cells.push(Some(c)),
        }
        self.col = col.saturating_add(1);
        Some(())
    }

    /// Writes kept text at the cursor, which must be at or past the end of its row.
    fn keep(&mut self, chars: impl Iterator<Item = char>) -> Option<()> {
        let col = self.col;
        if col < self.rows.get(self.row)?.cells.len() {
            return None;
        }
        self.pad_to_cursor()?;
        let row = self.current()?;
        row.kept_from = row.kept_from.min(col);
        row.cells.extend(chars.map(Some));
        self.col = row.cells.len();
        Some(())
    }

    fn line_feed(&mut self) {
        if self.row + 1 >= self.rows.len() {
            self.rows.push(Row::new());
            self.row = self.rows.len() - 1;
        } else {
            self.row += 1;
        }
        self.col = 0;
    }

    /// Moves to `col` of the same row; `relative` when the move counts from the cursor, whose
    /// column must then be exact too.
    fn move_col(&mut self, col: usize, relative: bool) -> Option<()> {
        let row = self.rows.get(self.row)?;
        if (relative && !row.exact(self.col)) || !row.exact(col) {
            return None;
        }
        self.col = col;
        Some(())
    }

    /// Moves to `row`, same column, exact on both rows.
    fn move_row(&mut self, row: usize) -> Option<()> {
        if !self.rows.get(self.row)?.exact(self.col) || !self.rows.get(row)?.exact(self.col) {
            return None;
        }
        self.row = row;
        Some(())
    }

    fn act(&mut self, action: Action) -> Option<()> {
        match action {
            Action::Up(n) => self.move_row(self.row.saturating_sub(n)),
            Action::Down(n) => {
                let last = self.rows.len().saturating_sub(1);
                self.move_row(self.row.saturating_add(n).min(last))
            }
            Action::Forward(n) => self.move_col(self.col.saturating_add(n), true),
            Action::Back(n) => self.move_col(self.col.saturating_sub(n), true),
            Action::Column(col) => self.move_col(col, false),
            Action::EraseLine(part) => self.erase_line(part),
            Action::EraseScreen(Erase::ToEnd) => {
                self.erase_line(Erase::ToEnd)?;
                self.erase_rows(self.row + 1..self.rows.len())
            }
            Action::EraseScreen(Erase::ToStart) => {
                self.erase_rows(0..self.row)?;
                self.erase_line(Erase::ToStart)
            }
            Action::EraseScreen(Erase::All) => self.erase_rows(0..self.rows.len()),
        }
    }

    fn erase_line(&mut self, part: Erase) -> Option<()> {
        let col = self.col;
        let (len, kept_from) = {
            let row = self.rows.get(self.row)?;
            (row.cells.len(), row.kept_from)
        };
        match part {
            Erase::ToEnd if col >= len => {}
            Erase::ToEnd if kept_from < NOTHING_KEPT => return None,
            Erase::ToEnd => self.current()?.cells.truncate(col),
            Erase::ToStart if kept_from <= col => return None,
            Erase::ToStart if col.saturating_add(1) >= len => self.current()?.cells.clear(),
            Erase::ToStart => {
                self.charge(col.saturating_add(1))?;
                self.current()?.cells.get_mut(..=col)?.fill(None);
            }
            Erase::All if kept_from < NOTHING_KEPT => return None,
            Erase::All => self.current()?.cells.clear(),
        }
        Some(())
    }

    /// Erases whole rows, none of which may hold kept text.
    fn erase_rows(&mut self, rows: Range<usize>) -> Option<()> {
        self.charge(rows.len())?;
        for row in self.rows.get_mut(rows)? {
            if row.holds_kept() {
                return None;
            }
            row.cells.clear();
        }
        Some(())
    }

    /// The rows joined by `\n`, blanks before a written cell as spaces, trailing blanks dropped.
    fn into_text(self, capacity: usize) -> String {
        let mut out = String::with_capacity(capacity);
        for (i, row) in self.rows.iter().enumerate() {
            if i > 0 {
                out.push('\n');
            }
            let end = row
                .cells
                .iter()
                .rposition(Option::is_some)
                .map_or(0, |p| p + 1);
            out.extend(row.cells.iter().take(end).map(|c| c.unwrap_or(' ')));
        }
        out
    }
}
