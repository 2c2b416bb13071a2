//! What the guided strategy reads in a skill's text: its body in `load_skill`'s output, the
//! resources it names, the Markdown tables of its resources, the step that says what to answer
//! with, and the numbered steps its scripts are run in.

/// A skill's instructions from `load_skill`'s text: after the frontmatter, before the
/// resource and script listings.
pub(crate) fn body_of(loaded: &str) -> &str {
    let after = loaded
        .strip_prefix("---\n")
        .and_then(|rest| rest.split_once("\n---\n").map(|(_, body)| body))
        .unwrap_or(loaded);
    let end = after.find("\n<available_resources").unwrap_or(after.len());
    after[..end].trim()
}

/// Whether `body` names the resource `name`: its path, or its file name as a word.
pub(crate) fn names(body: &str, name: &str) -> bool {
    if body.contains(name) {
        return true;
    }
    let file = name.rsplit('/').next().unwrap_or(name);
    file.contains('.')
        && body.match_indices(file).any(|(at, _)| {
            let before = body[..at].chars().next_back();
            let after = body[at + file.len()..].chars().next();
            before.is_none_or(|c| !c.is_alphanumeric() && c != '-' && c != '_')
                && after.is_none_or(|c| !c.is_alphanumeric() && c != '-' && c != '_')
        })
}

/// The fewest rows of a table worth a lookup, and the most.
const MIN_ROWS: usize = 2;
const MAX_ROWS: usize = 60;

/// A Markdown table of a skill's text: the heading it stands under, its header cells and its
/// rows' cells.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Table {
    /// The nearest heading above the table (`Cats` for `## Cats`), if any.
    pub(crate) heading: Option<String>,
    pub(crate) header: Vec<String>,
    pub(crate) rows: Vec<Vec<String>>,
}

impl Table {
    /// Row `at` as its cells joined by ` | `.
    pub(crate) fn row(&self, at: usize) -> String {
        self.rows[at].join(" | ")
    }

    /// Row `at` with each cell named by its column (`fare: Flex; checked bags: 2`), so a
    /// reader need not count columns.
    pub(crate) fn labelled(&self, at: usize) -> String {
        labelled(self.rows[at].iter().enumerate().map(|(column, cell)| {
            let name = self.header.get(column).map_or("", String::as_str);
            (name, cell.as_str())
        }))
    }
}

impl Table {
    /// `rows`, each with its cells named by their columns, then for each column whose cells in
    /// those rows are all numbers, their sum written out (`symbols, added up: 26 + 26 + 10 =
    /// 62`): the adding a skill asks for is done by the runtime, not left to the model.
    pub(crate) fn added_up(&self, rows: &[usize]) -> String {
        let listed: Vec<String> = rows.iter().map(|at| self.labelled(*at)).collect();
        let mut text = listed.join(" / ");
        for (column, name) in self.header.iter().enumerate().skip(1) {
            let cells: Vec<&str> = rows
                .iter()
                .filter_map(|at| self.rows[*at].get(column).map(|cell| cell.trim()))
                .collect();
            let numbers: Vec<f64> = cells
                .iter()
                .filter_map(|cell| cell.replace(',', "").parse::<f64>().ok())
                .collect();
            if numbers.len() != rows.len() {
                continue;
            }
            let total = (numbers.iter().sum::<f64>() * 1e6).round() / 1e6;
            text.push_str(&format!(
                "; {name}, added up: {} = {total}",
                cells.join(" + ")
            ));
        }
        text
    }
}

/// Cells, each as `column: cell` (the cell alone where the column has no name), joined by `; `.
fn labelled<'a>(cells: impl Iterator<Item = (&'a str, &'a str)>) -> String {
    let cells: Vec<String> = cells
        .map(|(column, cell)| {
            if column.is_empty() {
                cell.to_owned()
            } else {
                format!("{column}: {cell}")
            }
        })
        .collect();
    cells.join("; ")
}

/// Each Markdown table in `text` that has from [`MIN_ROWS`] to [`MAX_ROWS`] rows.
pub(crate) fn tables(text: &str) -> Vec<Table> {
    let mut heading = None;
    let mut tables = Vec::new();
    for block in blocks(text) {
        match block {
            Block::Heading(text) => heading = Some(text),
            Block::Table { header, rows } if (MIN_ROWS..=MAX_ROWS).contains(&rows.len()) => {
                tables.push(Table {
                    heading: heading.clone(),
                    header,
                    rows,
                });
            }
            _ => {}
        }
    }
    tables
}

/// A part of a skill's text a question may be about: a table's row, a list item or a
/// paragraph, with the heading it stands under.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Passage {
    /// The nearest heading above it, if any.
    pub(crate) heading: Option<String>,
    /// Its text; a table row's cells each named by its column ([`Table::labelled`]).
    pub(crate) text: String,
    /// A table row's first cell and its column's name (what a range in that cell counts).
    pub(crate) first_cell: Option<(String, String)>,
    /// A table row's cells, each with its column's name (empty for other passages).
    pub(crate) cells: Vec<(String, String)>,
}

impl Passage {
    /// A table row's text with only its first cell and the cells of `columns` (indices of
    /// [`Passage::cells`] after the first), each named by its column.
    pub(crate) fn with_columns(&self, columns: &[usize]) -> String {
        labelled(
            self.cells
                .iter()
                .enumerate()
                .filter(|(at, _)| *at == 0 || columns.contains(&(at - 1)))
                .map(|(_, (column, cell))| (column.as_str(), cell.as_str())),
        )
    }
}

/// The passages of `text`, in its order (not its headings, nor code blocks).
pub(crate) fn passages(text: &str) -> Vec<Passage> {
    let mut heading = None;
    let mut passages = Vec::new();
    for block in blocks(text) {
        match block {
            Block::Heading(text) => heading = Some(text),
            Block::Table { header, rows } => {
                let table = Table {
                    heading: heading.clone(),
                    header,
                    rows,
                };
                let column = table.header.first().cloned().unwrap_or_default();
                for (at, cells) in table.rows.iter().enumerate() {
                    passages.push(Passage {
                        heading: heading.clone(),
                        text: table.labelled(at),
                        first_cell: cells.first().map(|cell| (cell.clone(), column.clone())),
                        cells: cells
                            .iter()
                            .enumerate()
                            .map(|(at, cell)| {
                                let name = table.header.get(at).cloned().unwrap_or_default();
                                (name, cell.clone())
                            })
                            .collect(),
                    });
                }
            }
            Block::Item(text) | Block::Paragraph(text) => passages.push(Passage {
                heading: heading.clone(),
                text,
                first_cell: None,
                cells: Vec::new(),
            }),
        }
    }
    passages
}

/// A block of Markdown, as [`tables`] and [`passages`] read it.
enum Block {
    Heading(String),
    Table {
        header: Vec<String>,
        rows: Vec<Vec<String>>,
    },
    /// A list item, with the lines it continues on, without its marker.
    Item(String),
    /// The lines of a paragraph, joined.
    Paragraph(String),
}

/// The blocks of `text`: headings, tables, list items and paragraphs; code blocks are left out.
fn blocks(text: &str) -> Vec<Block> {
    let mut blocks = Vec::new();
    let mut paragraph: Vec<&str> = Vec::new();
    let mut fenced = false;
    let mut lines = text.lines().peekable();
    let flush = |paragraph: &mut Vec<&str>, blocks: &mut Vec<Block>| {
        if !paragraph.is_empty() {
            blocks.push(Block::Paragraph(paragraph.join(" ")));
            paragraph.clear();
        }
    };
    while let Some(raw) = lines.next() {
        let line = raw.trim();
        if line.starts_with("```") || line.starts_with("~~~") {
            flush(&mut paragraph, &mut blocks);
            fenced = !fenced;
            continue;
        }
        if fenced {
            continue;
        }
        if line.is_empty() {
            flush(&mut paragraph, &mut blocks);
        } else if line.starts_with('#') {
            flush(&mut paragraph, &mut blocks);
            blocks.push(Block::Heading(
                line.trim_start_matches('#').trim().to_owned(),
            ));
        } else if line.starts_with('|') {
            flush(&mut paragraph, &mut blocks);
            if !lines.peek().is_some_and(|next| is_separator(next.trim())) {
                continue;
            }
            lines.next();
            let mut rows = Vec::new();
            while let Some(row) = lines.next_if(|row| row.trim().starts_with('|')) {
                rows.push(cells(row.trim()));
            }
            blocks.push(Block::Table {
                header: cells(line),
                rows,
            });
        } else if is_item(line) {
            flush(&mut paragraph, &mut blocks);
            let mut item = vec![item_text(line).trim()];
            while let Some(more) = lines.next_if(|next| continues(next)) {
                item.push(more.trim());
            }
            blocks.push(Block::Item(item.join(" ")));
        } else {
            paragraph.push(line);
        }
    }
    flush(&mut paragraph, &mut blocks);
    blocks
}

/// Whether `line` (trimmed) begins a list item: `- `, `* ` or a number (`3. `).
fn is_item(line: &str) -> bool {
    line.starts_with("- ") || line.starts_with("* ") || step_number(line).is_some()
}

/// The cells of a table line (`\|` is a `|` inside a cell).
fn cells(line: &str) -> Vec<String> {
    const ESCAPED: &str = "\u{0}";
    line.replace("\\|", ESCAPED)
        .trim_matches('|')
        .split('|')
        .map(|cell| cell.trim().replace(ESCAPED, "|"))
        .collect()
}

/// Whether `line` is a table's separator row (`|---|:--:|`).
fn is_separator(line: &str) -> bool {
    line.starts_with('|')
        && line.contains('-')
        && line.chars().all(|c| matches!(c, '|' | '-' | ':' | ' '))
}

/// The step of `body` that says what to answer with (`4. Answer with `litres` …`), with the
/// lines it continues on; empty when there is none.
pub(crate) fn answer_step(body: &str) -> String {
    let lines: Vec<&str> = body.lines().collect();
    let Some(at) = lines.iter().position(|line| {
        let text = item_text(line).to_ascii_lowercase();
        text.starts_with("answer with")
            || text.starts_with("reply with")
            || text.starts_with("answer the")
    }) else {
        return String::new();
    };
    let mut step = vec![item_text(lines[at]).trim()];
    step.extend(
        lines[at + 1..]
            .iter()
            .take_while(|line| continues(line))
            .map(|line| line.trim()),
    );
    step.join(" ")
}

/// The numbered step of `body` that first names each of `scripts`: `None` for a script no
/// numbered step names.
pub(crate) fn steps_naming(body: &str, scripts: &[String]) -> Vec<Option<usize>> {
    let mut steps: Vec<(usize, String)> = Vec::new();
    for line in body.lines() {
        match step_number(line) {
            Some(number) => steps.push((number, line.to_owned())),
            None if continues(line) => {
                if let Some((_, text)) = steps.last_mut() {
                    text.push(' ');
                    text.push_str(line.trim());
                }
            }
            None => {}
        }
    }
    scripts
        .iter()
        .map(|script| {
            steps
                .iter()
                .find(|(_, text)| text.contains(script.as_str()))
                .map(|(number, _)| *number)
        })
        .collect()
}

/// The number of a numbered list item (`3. Run …`).
fn step_number(line: &str) -> Option<usize> {
    let trimmed = line.trim_start();
    let digits: String = trimmed.chars().take_while(char::is_ascii_digit).collect();
    let rest = &trimmed[digits.len()..];
    if digits.is_empty() || !(rest.starts_with(". ") || rest.starts_with(") ")) {
        return None;
    }
    digits.parse().ok()
}

/// A list item's text without its marker (`3. `, `- `).
fn item_text(line: &str) -> &str {
    let trimmed = line.trim_start();
    if step_number(trimmed).is_some() {
        return trimmed
            .split_once(['.', ')'])
            .map_or(trimmed, |(_, rest)| rest.trim_start());
    }
    trimmed
        .strip_prefix("- ")
        .or_else(|| trimmed.strip_prefix("* "))
        .unwrap_or(trimmed)
}

/// Whether `line` continues the list item above it (indented text, not a new item).
fn continues(line: &str) -> bool {
    let trimmed = line.trim_start();
    !trimmed.is_empty() && line.len() > trimmed.len() && !is_item(trimmed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_added_up_are_listed_with_the_sum_of_each_column_of_numbers() {
        let table = Table {
            heading: None,
            header: ["set", "symbols", "example"].map(String::from).to_vec(),
            rows: [
                ["lowercase letters", "26", "abc"],
                ["uppercase letters", "26", "ABC"],
                ["digits", "10", "123"],
                ["ASCII punctuation", "32", "!?"],
            ]
            .iter()
            .map(|row| row.map(String::from).to_vec())
            .collect(),
        };
        assert_eq!(
            table.added_up(&[0, 2, 3]),
            "set: lowercase letters; symbols: 26; example: abc / set: digits; symbols: 10; \
             example: 123 / set: ASCII punctuation; symbols: 32; example: !?; symbols, added up: \
             26 + 10 + 32 = 68"
        );
    }

    #[test]
    fn a_body_names_resources_by_path_or_file_name() {
        let body = "Read `references/table.md`, then see tipping.md for more.";
        assert!(names(body, "references/table.md"));
        assert!(names(body, "references/tipping.md"));
        assert!(!names(body, "references/able.md"));
        assert!(!names(body, "assets/data.csv"));
    }

    #[test]
    fn the_body_is_read_from_load_skills_text() {
        let loaded = "---\nname: a\ndescription: b\n---\n# A\n\nDo it.\n\n<available_resources />\n\n<available_scripts />";
        assert_eq!(body_of(loaded), "# A\n\nDo it.");
    }

    #[test]
    fn tables_give_their_rows_and_steps_their_numbers() {
        let text = "# MET\n\n| activity | MET |\n|---|---|\n| yoga | 2.5 |\n| running, 6 mph | 9.8 |\n\nMore.";
        let found = tables(text);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].heading.as_deref(), Some("MET"));
        assert_eq!(found[0].row(1), "running, 6 mph | 9.8");
        assert_eq!(found[0].labelled(0), "activity: yoga; MET: 2.5");
        let escaped = tables("## Sets\n\n| set | size |\n|---|---|\n| `{\\|}` | 3 |\n| a-z | 26 |");
        assert_eq!(escaped[0].rows[0], ["`{|}`", "3"]);
        assert_eq!(escaped[0].heading.as_deref(), Some("Sets"));
        assert!(tables("| a |\n|---|\n| one row |").is_empty());
        let body = "## Steps\n1. Run `scripts/a.py` with the options.\n2. Take `x`.\n3. Run\n   `scripts/b.py` with x.\n4. Answer with `litres` from the\n   second output.\n\nExample: `scripts/c.py`.";
        let scripts = ["scripts/a.py", "scripts/b.py", "scripts/c.py"].map(String::from);
        assert_eq!(steps_naming(body, &scripts), [Some(1), Some(3), None]);
        assert_eq!(
            answer_step(body),
            "Answer with `litres` from the second output."
        );
    }
    #[test]
    fn passages_are_rows_items_and_paragraphs_under_their_headings() {
        let text = "# Rules\n\nRead all of it.\nIt is short.\n\n## Fees\n\n| fare | bag |\n|---|---|\n| \
                    Light | €35 |\n\n- Bicycle: €80\n- Extra bag: €55 within Europe,\n  €120 \
                    elsewhere.\n\n```\n- not a rule\n```\n";
        let found = passages(text);
        let shown: Vec<(Option<&str>, &str)> = found
            .iter()
            .map(|passage| (passage.heading.as_deref(), passage.text.as_str()))
            .collect();
        assert_eq!(
            shown,
            [
                (Some("Rules"), "Read all of it. It is short."),
                (Some("Fees"), "fare: Light; bag: €35"),
                (Some("Fees"), "Bicycle: €80"),
                (
                    Some("Fees"),
                    "Extra bag: €55 within Europe, €120 elsewhere."
                ),
            ]
        );
        assert_eq!(
            found[1].first_cell,
            Some(("Light".to_owned(), "fare".to_owned()))
        );
        assert_eq!(found[2].first_cell, None);
        assert_eq!(
            found[1].cells,
            [
                ("fare".to_owned(), "Light".to_owned()),
                ("bag".to_owned(), "€35".to_owned())
            ]
        );
        assert!(found[2].cells.is_empty());
    }

    #[test]
    fn a_row_is_shown_with_its_first_cell_and_the_columns_asked_about() {
        let found = passages(
            "| fare | cabin bag | checked bags |\n|---|---|---|\n| Business | 2 bags, 18 kg \
             together | 2 bags, up to 32 kg each |\n",
        );
        assert_eq!(
            found[0].with_columns(&[0]),
            "fare: Business; cabin bag: 2 bags, 18 kg together"
        );
        assert_eq!(found[0].with_columns(&[0, 1]), found[0].text);
    }
}
