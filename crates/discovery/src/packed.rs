//! The text a discovered skill keeps between discoveries: the strings of its frontmatter, its
//! directory relative to its root and the names of its files, packed into one string, with
//! their lengths beside it. A library of 10,000 skills is held in memory all the time, so each
//! skill costs two allocations here instead of one per string, map and file object.

use std::fmt;

/// The groups of strings a [`PackedText`] holds, in the order they are stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Group {
    Name,
    Description,
    License,
    Compatibility,
    /// The `metadata` mapping: each key followed by its value.
    Metadata,
    AllowedTools,
    /// The skill's directory relative to its root (empty when the root is the skill).
    Dir,
    Resources,
    Scripts,
}

const GROUPS: usize = 9;

/// The groups after the name and the description, which have a count each.
const COUNTED_GROUPS: &[Group] = Group::ALL.split_at(2).1;

impl Group {
    const ALL: [Group; GROUPS] = [
        Group::Name,
        Group::Description,
        Group::License,
        Group::Compatibility,
        Group::Metadata,
        Group::AllowedTools,
        Group::Dir,
        Group::Resources,
        Group::Scripts,
    ];
}

/// Strings in groups, packed: every string of every group in one `str`, and in `lengths` LEB128
/// numbers (one byte for anything below 128): the lengths of the name and the description, then
/// the count of each other group, then the length of each of their strings. The name and the
/// description, which catalogs and search read for every skill, are found without reading the
/// rest. The count of [`Group::AllowedTools`] is stored plus one, so that an absent list (0)
/// differs from an empty one (1).
#[derive(Clone, PartialEq, Eq)]
pub(crate) struct PackedText {
    text: Box<str>,
    lengths: Box<[u8]>,
}

impl PackedText {
    /// Packs `groups`: for each group of [`Group::ALL`], in that order, its strings, or `None`
    /// for an absent [`Group::AllowedTools`] (any other group's `None` is stored as empty; the
    /// name and the description are their group's first string, or empty).
    pub(crate) fn new(groups: [Option<Vec<&str>>; GROUPS]) -> Self {
        let [name, description, rest @ ..] = &groups;
        fn single<'a>(group: &Option<Vec<&'a str>>) -> &'a str {
            group
                .as_ref()
                .and_then(|strings| strings.first().copied())
                .unwrap_or_default()
        }
        let (name, description) = (single(name), single(description));
        let total: usize = rest.iter().flatten().flatten().map(|s| s.len()).sum();
        let mut text = String::with_capacity(name.len() + description.len() + total);
        let mut lengths = Vec::new();
        for string in [name, description] {
            push_number(&mut lengths, string.len());
            text.push_str(string);
        }
        for (group, strings) in COUNTED_GROUPS.iter().zip(rest) {
            let count = strings.as_ref().map_or(0, Vec::len);
            let stored = match group {
                Group::AllowedTools => strings.as_ref().map_or(0, |_| count + 1),
                _ => count,
            };
            push_number(&mut lengths, stored);
        }
        for string in rest.iter().flatten().flatten() {
            push_number(&mut lengths, string.len());
            text.push_str(string);
        }
        Self {
            text: text.into_boxed_str(),
            lengths: lengths.into_boxed_slice(),
        }
    }

    /// The strings of `group`, in the order they were packed; `None` only for an absent
    /// [`Group::AllowedTools`].
    pub(crate) fn group(&self, group: Group) -> Option<Strings<'_>> {
        let mut numbers = Numbers(&self.lengths);
        match group {
            Group::Name => return Some(Strings::new(&self.text, numbers, 0, 1)),
            Group::Description => {
                let offset = numbers.next().unwrap_or(0);
                return Some(Strings::new(&self.text, numbers, offset, 1));
            }
            _ => {}
        }
        let mut offset = numbers.next().unwrap_or(0) + numbers.next().unwrap_or(0);
        let mut skip = 0;
        let mut take = 0;
        let mut present = true;
        for &each in COUNTED_GROUPS {
            let stored = numbers.next().unwrap_or(0);
            let count = match each {
                Group::AllowedTools => stored.saturating_sub(1),
                _ => stored,
            };
            if each == group {
                take = count;
                present = each != Group::AllowedTools || stored > 0;
            } else if (each as usize) < (group as usize) {
                skip += count;
            }
        }
        for _ in 0..skip {
            offset += numbers.next().unwrap_or(0);
        }
        present.then(|| Strings::new(&self.text, numbers, offset, take))
    }

    /// The first string of `group`, if it has one.
    pub(crate) fn first(&self, group: Group) -> Option<&str> {
        self.group(group)?.next()
    }

    /// The strings of `group` (none for an absent [`Group::AllowedTools`]).
    pub(crate) fn all(&self, group: Group) -> impl Iterator<Item = &str> + '_ {
        self.group(group).into_iter().flatten()
    }

    /// The bytes this text holds on the heap.
    #[cfg(test)]
    pub(crate) fn heap_bytes(&self) -> usize {
        self.text.len() + self.lengths.len()
    }
}

/// The strings of one group of a [`PackedText`].
pub(crate) struct Strings<'a> {
    text: &'a str,
    /// The lengths, from the group's first string on.
    lengths: Numbers<'a>,
    offset: usize,
    left: usize,
}

impl<'a> Strings<'a> {
    fn new(text: &'a str, lengths: Numbers<'a>, offset: usize, left: usize) -> Self {
        Self {
            text,
            lengths,
            offset,
            left,
        }
    }
}

impl<'a> Iterator for Strings<'a> {
    type Item = &'a str;

    fn next(&mut self) -> Option<&'a str> {
        self.left = self.left.checked_sub(1)?;
        let start = self.offset;
        self.offset += self.lengths.next().unwrap_or(0);
        Some(self.text.get(start..self.offset).unwrap_or_default())
    }
}

impl fmt::Debug for PackedText {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut map = f.debug_map();
        for group in Group::ALL {
            if let Some(strings) = self.group(group) {
                map.entry(&group, &strings.collect::<Vec<_>>());
            }
        }
        map.finish()
    }
}

/// Appends `number` as LEB128: seven bits per byte, low bits first, the high bit set on every
/// byte but the last.
fn push_number(bytes: &mut Vec<u8>, mut number: usize) {
    loop {
        let low = (number & 0x7f) as u8;
        number >>= 7;
        if number == 0 {
            bytes.push(low);
            return;
        }
        bytes.push(low | 0x80);
    }
}

/// The LEB128 numbers of a byte string, in order.
struct Numbers<'a>(&'a [u8]);

impl Iterator for Numbers<'_> {
    type Item = usize;

    fn next(&mut self) -> Option<usize> {
        let mut number = 0;
        let mut shift = 0;
        while let Some((&byte, rest)) = self.0.split_first() {
            self.0 = rest;
            number |= usize::from(byte & 0x7f) << shift;
            if byte & 0x80 == 0 {
                return Some(number);
            }
            shift += 7;
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn packed(groups: [Option<Vec<&str>>; GROUPS]) -> PackedText {
        PackedText::new(groups)
    }

    fn strings(text: &PackedText, group: Group) -> Option<Vec<&str>> {
        text.group(group).map(Iterator::collect)
    }

    #[test]
    fn every_group_reads_back_as_packed() {
        let long = "x".repeat(70_000);
        let groups = [
            Some(vec!["pdf"]),
            Some(vec![long.as_str()]),
            None,
            Some(vec!["Needs python3. ✓"]),
            Some(vec!["version", "1.0", "risk", "destructive"]),
            Some(vec![]),
            Some(vec!["tools/pdf"]),
            Some(vec!["references/a.md", "", "b.md"]),
            Some(vec!["scripts/run.py"]),
        ];
        let text = packed(groups.clone());
        for (group, expected) in Group::ALL.into_iter().zip(groups) {
            let expected = match group {
                Group::AllowedTools => expected,
                _ => Some(expected.unwrap_or_default()),
            };
            assert_eq!(strings(&text, group), expected, "{group:?}");
        }
        assert_eq!(text.first(Group::License), None);
        assert_eq!(text.first(Group::Name), Some("pdf"));
    }

    #[test]
    fn an_absent_list_of_tools_differs_from_an_empty_one() {
        let mut groups: [Option<Vec<&str>>; GROUPS] = Default::default();
        assert_eq!(strings(&packed(groups.clone()), Group::AllowedTools), None);
        groups[Group::AllowedTools as usize] = Some(Vec::new());
        assert_eq!(
            strings(&packed(groups.clone()), Group::AllowedTools),
            Some(Vec::new())
        );
        groups[Group::AllowedTools as usize] = Some(vec!["Bash(git:*)", "Read"]);
        let text = packed(groups);
        assert_eq!(
            strings(&text, Group::AllowedTools),
            Some(vec!["Bash(git:*)", "Read"])
        );
        assert_eq!(text.all(Group::Scripts).count(), 0);
    }

    #[test]
    fn numbers_round_trip_across_byte_boundaries() {
        let values = [0, 1, 127, 128, 16_383, 16_384, 1 << 32, usize::MAX];
        let mut bytes = Vec::new();
        for value in values {
            push_number(&mut bytes, value);
        }
        assert_eq!(Numbers(&bytes).collect::<Vec<_>>(), values);
        assert_eq!(bytes[..3], [0, 1, 127]);
    }

    #[test]
    fn a_short_skill_costs_its_text_and_one_length_byte_per_string() {
        let text = packed([
            Some(vec!["skill-00000"]),
            Some(vec!["Converts units."]),
            None,
            None,
            None,
            None,
            Some(vec!["skill-00000"]),
            Some(vec!["references/ref-0.md"]),
            None,
        ]);
        let strings = 11 + 15 + 11 + 19;
        // Two lengths, seven counts, two lengths.
        assert_eq!(text.heap_bytes(), strings + 2 + 7 + 2);
    }
}
