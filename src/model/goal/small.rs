//! An op's label and dependency lists, held inline: a Schedgen file has one op a
//! line and several hundred thousand lines, so one allocation per op (a
//! `String` label, a `Vec` of dependencies) costs more than reading its line.
#![forbid(unsafe_code)]

use serde::{Serialize, Serializer};

use super::OpId;

/// Bytes of a label held inline; longer labels go to the heap.
const INLINE: usize = 22;

/// An op's label: the file's (`l1`) or `#N` for an unlabelled op. Reads as a
/// `&str`; up to 22 bytes it holds no allocation.
#[derive(Clone, PartialEq, Eq, Hash)]
pub enum Label {
    /// Up to `INLINE` bytes of UTF-8: the length, then the bytes.
    Short(u8, [u8; INLINE]),
    /// A longer label.
    Long(Box<str>),
}

impl Label {
    /// `#id`, the label of an unlabelled op.
    pub fn unnamed(id: OpId) -> Label {
        let mut digits = [0u8; 10];
        let (mut n, mut at) = (id, digits.len());
        loop {
            at -= 1;
            digits[at] = b'0' + (n % 10) as u8;
            n /= 10;
            if n == 0 {
                break;
            }
        }
        let mut b = [0u8; INLINE];
        b[0] = b'#';
        let len = 1 + digits.len() - at;
        b[1..len].copy_from_slice(&digits[at..]);
        Label::Short(len as u8, b)
    }

    /// The label's bytes (UTF-8).
    pub fn as_bytes(&self) -> &[u8] {
        match self {
            Label::Short(n, b) => &b[..*n as usize],
            Label::Long(s) => s.as_bytes(),
        }
    }

    /// The label's text.
    pub fn as_str(&self) -> &str {
        match self {
            Label::Short(n, b) => std::str::from_utf8(&b[..*n as usize]).unwrap_or("?"),
            Label::Long(s) => s,
        }
    }
}

impl From<&str> for Label {
    fn from(s: &str) -> Label {
        if s.len() > INLINE {
            return Label::Long(s.into());
        }
        let mut b = [0u8; INLINE];
        b[..s.len()].copy_from_slice(s.as_bytes());
        Label::Short(s.len() as u8, b)
    }
}

impl From<String> for Label {
    fn from(s: String) -> Label {
        Label::from(s.as_str())
    }
}

impl std::ops::Deref for Label {
    type Target = str;
    fn deref(&self) -> &str {
        self.as_str()
    }
}

impl std::fmt::Display for Label {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::fmt::Debug for Label {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Debug::fmt(self.as_str(), f)
    }
}

impl PartialEq<&str> for Label {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

impl Serialize for Label {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

/// Dependencies held inline.
const DEPS_INLINE: usize = 5;

/// An op's `requires` or `irequires` list, in file order: a `[OpId]` that
/// holds up to 5 ids without an allocation.
#[derive(Clone)]
pub enum Deps {
    /// The count, then the ids.
    Inline(u8, [OpId; DEPS_INLINE]),
    /// More than `DEPS_INLINE` ids.
    Heap(Vec<OpId>),
}

impl Default for Deps {
    fn default() -> Deps {
        Deps::Inline(0, [0; DEPS_INLINE])
    }
}

impl Deps {
    /// Appends `id`.
    pub fn push(&mut self, id: OpId) {
        match self {
            Deps::Inline(n, ids) if (*n as usize) < DEPS_INLINE => {
                ids[*n as usize] = id;
                *n += 1;
            }
            Deps::Inline(_, ids) => {
                let mut v = ids.to_vec();
                v.push(id);
                *self = Deps::Heap(v);
            }
            Deps::Heap(v) => v.push(id),
        }
    }
}

impl std::ops::Deref for Deps {
    type Target = [OpId];
    fn deref(&self) -> &[OpId] {
        match self {
            Deps::Inline(n, ids) => &ids[..*n as usize],
            Deps::Heap(v) => v,
        }
    }
}

impl std::ops::DerefMut for Deps {
    fn deref_mut(&mut self) -> &mut [OpId] {
        match self {
            Deps::Inline(n, ids) => &mut ids[..*n as usize],
            Deps::Heap(v) => v,
        }
    }
}

impl<'a> IntoIterator for &'a Deps {
    type Item = &'a OpId;
    type IntoIter = std::slice::Iter<'a, OpId>;
    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

impl From<Vec<OpId>> for Deps {
    fn from(v: Vec<OpId>) -> Deps {
        let mut d = Deps::default();
        v.into_iter().for_each(|id| d.push(id));
        d
    }
}

impl PartialEq for Deps {
    fn eq(&self, other: &Deps) -> bool {
        **self == **other
    }
}

impl Eq for Deps {}

impl PartialEq<Vec<OpId>> for Deps {
    fn eq(&self, other: &Vec<OpId>) -> bool {
        **self == other[..]
    }
}

impl std::fmt::Debug for Deps {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Debug::fmt(&**self, f)
    }
}

impl Serialize for Deps {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        (**self).serialize(s)
    }
}
