//! Bundled archives: the members of a `.zip`, `.tar`, `.tar.gz` or `.tgz` file in a skill are
//! scanned with the same rules, each named `archive.zip!inner/path`. Archives are other people's
//! data: they are read in memory only (nothing is extracted, so a member's name cannot reach the
//! disk), and every read is bounded. Past a bound, or where an archive cannot be read, the
//! archive is a finding ([`ARCHIVE_NOT_INSPECTED`]) rather than skipped; what was read before is
//! scanned.

use std::io::{Cursor, Read};

use flate2::read::GzDecoder;

use crate::class::FileClass;
use crate::rules::{ARCHIVE_NOT_INSPECTED, excerpt};
use crate::{Finding, Report, fingerprint};

/// The most members looked at in one archive, nested ones included.
const MAX_MEMBERS: usize = 1_000;
/// The most bytes of one member.
const MAX_MEMBER_BYTES: u64 = 4 * 1024 * 1024;
/// The most bytes of all members of one archive together, nested ones included.
const MAX_TOTAL_BYTES: u64 = 64 * 1024 * 1024;
/// How deep archives inside archives are opened: an archive in the skill is depth 1.
const MAX_DEPTH: usize = 2;

/// The archive formats looked into, by the file's name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    Zip,
    Tar,
    TarGz,
}

impl Kind {
    /// The format of a file named `name`, if it is an archive.
    pub(crate) fn of(name: &str) -> Option<Self> {
        let name = name.to_ascii_lowercase();
        if name.ends_with(".zip") {
            Some(Self::Zip)
        } else if name.ends_with(".tar.gz") || name.ends_with(".tgz") {
            Some(Self::TarGz)
        } else if name.ends_with(".tar") {
            Some(Self::Tar)
        } else {
            None
        }
    }
}

/// What one archive in the skill, with those nested in it, may still use.
struct Budget {
    members: usize,
    bytes: u64,
}

/// Why an archive was not read to its end.
struct Stop(String);

/// One archive being read: where its findings go and what names them.
struct Archive<'a> {
    file: &'a str,
    relative: &'a str,
    skill: Option<&'a str>,
    depth: usize,
}

/// Scans the members of the archive `bytes` of `kind`, the skill's file `file` (`relative`
/// inside it).
pub(crate) fn check(
    report: &mut Report,
    bytes: &[u8],
    kind: Kind,
    (file, relative): (&str, &str),
    skill: Option<&str>,
) {
    let mut budget = Budget {
        members: MAX_MEMBERS,
        bytes: MAX_TOTAL_BYTES,
    };
    let archive = Archive {
        file,
        relative,
        skill,
        depth: 1,
    };
    archive.read(report, bytes, kind, &mut budget);
}

impl Archive<'_> {
    fn read(&self, report: &mut Report, bytes: &[u8], kind: Kind, budget: &mut Budget) {
        let result = match kind {
            Kind::Zip => self.read_zip(report, bytes, budget),
            Kind::Tar => self.read_tar(report, bytes, budget),
            Kind::TarGz => self.read_tar(report, GzDecoder::new(bytes), budget),
        };
        if let Err(Stop(why)) = result {
            self.not_inspected(report, why);
        }
    }

    fn read_zip(&self, report: &mut Report, bytes: &[u8], budget: &mut Budget) -> Result<(), Stop> {
        let unreadable = |error: zip::result::ZipError| {
            Stop(format!(
                "cannot be read as zip: {}",
                excerpt(&error.to_string())
            ))
        };
        let mut archive = zip::ZipArchive::new(Cursor::new(bytes)).map_err(unreadable)?;
        if archive.len() > budget.members {
            return Err(Stop(format!(
                "holds {} members, more than the {MAX_MEMBERS} looked at: too large to inspect",
                archive.len()
            )));
        }
        for index in 0..archive.len() {
            let mut member = archive.by_index(index).map_err(unreadable)?;
            if member.is_dir() {
                continue;
            }
            let name = String::from_utf8_lossy(member.name_raw()).into_owned();
            let data = self.take(&mut member, &name, budget)?;
            self.member(report, &name, data, budget);
        }
        Ok(())
    }

    fn read_tar(
        &self,
        report: &mut Report,
        reader: impl Read,
        budget: &mut Budget,
    ) -> Result<(), Stop> {
        let unreadable = |error: std::io::Error| {
            Stop(format!(
                "cannot be read as tar: {}",
                excerpt(&error.to_string())
            ))
        };
        let mut archive = tar::Archive::new(reader);
        for entry in archive.entries().map_err(unreadable)? {
            let mut entry = entry.map_err(unreadable)?;
            // The declared size bounds what reading on to the next member decompresses.
            let size = entry.header().size().map_err(unreadable)?;
            let name = String::from_utf8_lossy(&entry.path_bytes()).into_owned();
            if size > MAX_MEMBER_BYTES {
                return Err(too_large(&name));
            }
            if !entry.header().entry_type().is_file() {
                continue;
            }
            let data = self.take(&mut entry, &name, budget)?;
            self.member(report, &name, data, budget);
        }
        Ok(())
    }

    /// Reads one member, within the bounds left.
    fn take(
        &self,
        member: &mut impl Read,
        name: &str,
        budget: &mut Budget,
    ) -> Result<Vec<u8>, Stop> {
        if budget.members == 0 {
            return Err(Stop(format!(
                "more than {MAX_MEMBERS} members with those nested in it: too large to inspect"
            )));
        }
        budget.members -= 1;
        let mut data = Vec::new();
        member
            .take(MAX_MEMBER_BYTES + 1)
            .read_to_end(&mut data)
            .map_err(|error| {
                Stop(format!(
                    "member {} cannot be read: {}",
                    excerpt(name),
                    excerpt(&error.to_string())
                ))
            })?;
        let size = data.len() as u64;
        if size > MAX_MEMBER_BYTES {
            return Err(too_large(name));
        }
        if size > budget.bytes {
            return Err(Stop(format!(
                "more than {MAX_TOTAL_BYTES} bytes unpacked: too large to inspect"
            )));
        }
        budget.bytes -= size;
        Ok(data)
    }

    /// Scans one member: an archive in its turn, or its text.
    fn member(&self, report: &mut Report, name: &str, data: Vec<u8>, budget: &mut Budget) {
        let file = format!("{}!{name}", self.file);
        let relative = format!("{}!{name}", self.relative);
        if let Some(kind) = Kind::of(name) {
            let nested = Archive {
                file: &file,
                relative: &relative,
                skill: self.skill,
                depth: self.depth + 1,
            };
            if nested.depth > MAX_DEPTH {
                nested.not_inspected(
                    report,
                    format!("an archive nested more than {MAX_DEPTH} deep: not inspected"),
                );
            } else {
                nested.read(report, &data, kind, budget);
            }
            return;
        }
        crate::check_bytes(
            report,
            data,
            (&file, &relative),
            self.skill,
            FileClass::of(name),
            false,
        );
    }

    /// The finding that this archive was not (completely) looked into, and `why`.
    fn not_inspected(&self, report: &mut Report, why: String) {
        report.findings.push(Finding {
            rule_id: ARCHIVE_NOT_INSPECTED.id,
            rule_name: ARCHIVE_NOT_INSPECTED.name,
            severity: ARCHIVE_NOT_INSPECTED.severity,
            fingerprint: fingerprint(ARCHIVE_NOT_INSPECTED.id, self.skill, self.relative, &why),
            message: why,
            file: self.file.to_owned(),
            line: 1,
            column: 1,
            skill: self.skill.map(str::to_owned),
            suppressed: None,
        });
    }
}

fn too_large(name: &str) -> Stop {
    Stop(format!(
        "member {} is larger than {MAX_MEMBER_BYTES} bytes: too large to inspect",
        excerpt(name)
    ))
}
