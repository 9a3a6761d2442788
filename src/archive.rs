//! Archives (`ar rcs libfoo.a a.o b.o`) of parc objects: what `parc cc
//! -c` writes is parir text, which the system linker cannot take, so an
//! archive of them is opened here and its parc objects join the program's
//! inputs, as `ld` takes an archive's members. Every parc object of the
//! archive is linked (not only those that define a name still undefined,
//! as `ld` chooses them). The `object` crate reads the format (GNU, BSD and
//! thin archives, with their tables of long names).

/// A member of an archive: its name and bytes.
pub struct Member {
    pub name: String,
    pub bytes: Vec<u8>,
}

/// The members of an `ar` archive, `None` when `bytes` is not one; the
/// symbol table and the table of long names are not members.
pub fn members(bytes: &[u8]) -> Option<Vec<Member>> {
    let archive = object::read::archive::ArchiveFile::parse(bytes).ok()?;
    archive
        .members()
        .map(|m| {
            let m = m.ok()?;
            Some(Member {
                name: String::from_utf8_lossy(m.name()).into_owned(),
                bytes: m.data(bytes).ok()?.to_vec(),
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::members;

    /// An archive as `ar` writes one: a header of 60 bytes per member.
    fn header(name: &str, size: usize) -> Vec<u8> {
        format!("{name:<16}{:<12}{:<6}{:<6}{:<8}{size:<10}`\n", 0, 0, 0, 644).into_bytes()
    }

    #[test]
    fn reads_members_and_long_names() {
        let mut a = b"!<arch>\n".to_vec();
        a.extend(header("/", 4));
        a.extend(b"\0\0\0\0");
        let long = b"a_rather_long_member_name.o/\n";
        a.extend(header("//", long.len()));
        a.extend(long);
        a.extend(b"\n");
        a.extend(header("b.o/", 3));
        a.extend(b"abc\n");
        a.extend(header("/0", 2));
        a.extend(b"xy");
        let m = members(&a).expect("an archive");
        let names: Vec<&str> = m.iter().map(|m| m.name.as_str()).collect();
        assert_eq!(names, ["b.o", "a_rather_long_member_name.o"]);
        assert_eq!(m[0].bytes, b"abc");
        assert_eq!(m[1].bytes, b"xy");
        assert!(members(b"not an archive").is_none());
    }
}
