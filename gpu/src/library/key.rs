//! What a pipeline is fetched by: an info, or one unique variant of it. Made by the library
//! ([`super::Library::variant`], [`super::Library::variant_key`]) rather than spelled by hand, so a renderer never
//! writes or parses `name#vN`; every fetch takes a `Key` or an info name (`impl AsRef<str>`).

use std::fmt;

/// An info name, or the key of one of its unique variants.
///
/// ```
/// use shader_info_gpu::library::Key;
/// let k = Key::from("gpu_shader_mesh#v3");
/// assert_eq!((k.info(), k.variant()), ("gpu_shader_mesh", Some(3)));
/// assert_eq!(Key::from("gpu_shader_text").variant(), None);
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Key {
    text: String,
}

impl Key {
    /// The key of variant `index` of `info`.
    pub fn variant_of(info: &str, index: usize) -> Key {
        Key {
            text: format!("{info}#v{index}"),
        }
    }

    /// The info's name.
    pub fn info(&self) -> &str {
        self.text.split('#').next().unwrap_or_default()
    }

    /// The unique variant's index, for a variant key.
    pub fn variant(&self) -> Option<usize> {
        crate::flow::parse_variant_key(&self.text).map(|(_, i)| i)
    }

    /// The key as text (what diagnostics and reports name).
    pub fn as_str(&self) -> &str {
        &self.text
    }
}

impl AsRef<str> for Key {
    fn as_ref(&self) -> &str {
        &self.text
    }
}

impl fmt::Display for Key {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

impl From<&str> for Key {
    fn from(s: &str) -> Key {
        Key {
            text: s.to_string(),
        }
    }
}

impl From<String> for Key {
    fn from(text: String) -> Key {
        Key { text }
    }
}

impl From<Key> for String {
    fn from(k: Key) -> String {
        k.text
    }
}
