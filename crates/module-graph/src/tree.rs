//! A target's module tree, read from its files: each module with its file, its parent, its
//! children, what it imports under which name, and every path its code names (in `use`
//! items, types, expressions, and the tokens of macros and attributes).

use proc_macro2::{TokenStream, TokenTree};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use syn::visit::Visit;

/// A path as written in a module, with the line it starts on.
#[derive(Debug, Clone)]
pub struct Ref {
    pub segments: Vec<String>,
    pub line: usize,
}

#[derive(Debug, Default)]
pub struct Module {
    /// From the target's root: `["routes", "webhooks"]`.
    pub name_path: Vec<String>,
    pub file: PathBuf,
    pub parent: Option<usize>,
    pub children: HashMap<String, usize>,
    /// A name brought in by `use` (its alias if renamed) and the path it stands for.
    pub imports: HashMap<String, Vec<String>>,
    pub refs: Vec<Ref>,
}

#[derive(Debug, Default)]
pub struct Tree {
    pub modules: Vec<Module>,
}

impl Tree {
    /// The tree of the target whose root file is `root` (`lib.rs`, `main.rs`, a test file).
    pub fn load(root: &Path) -> Result<Tree, String> {
        let mut tree = Tree::default();
        let file = parse(root)?;
        let dir = root.parent().unwrap_or(Path::new(".")).to_path_buf();
        tree.add(Vec::new(), root, None, &file.items, &dir)?;
        Ok(tree)
    }

    pub fn is_ancestor(&self, ancestor: usize, of: usize) -> bool {
        let mut at = self.modules[of].parent;
        while let Some(m) = at {
            if m == ancestor {
                return true;
            }
            at = self.modules[m].parent;
        }
        false
    }

    /// Adds a module whose items are `items`; `dir` is where its `mod x;` files live.
    fn add(
        &mut self,
        name_path: Vec<String>,
        file: &Path,
        parent: Option<usize>,
        items: &[syn::Item],
        dir: &Path,
    ) -> Result<usize, String> {
        let id = self.modules.len();
        let mut collector = Collector::default();
        for item in items {
            collector.visit_item(item);
        }
        self.modules.push(Module {
            name_path: name_path.clone(),
            file: file.to_path_buf(),
            parent,
            children: HashMap::new(),
            imports: collector.imports,
            refs: collector.refs,
        });
        for item in items {
            let syn::Item::Mod(m) = item else { continue };
            let name = m.ident.to_string();
            let mut child_path = name_path.clone();
            child_path.push(name.clone());
            let child = match &m.content {
                Some((_, inner)) => {
                    self.add(child_path, file, Some(id), inner, &dir.join(&name))?
                }
                None => {
                    let (child_file, child_dir) = module_file(dir, &name, m)?;
                    let parsed = parse(&child_file)?;
                    self.add(child_path, &child_file, Some(id), &parsed.items, &child_dir)?
                }
            };
            self.modules[id].children.insert(name, child);
        }
        Ok(id)
    }
}

fn parse(file: &Path) -> Result<syn::File, String> {
    let text = std::fs::read_to_string(file).map_err(|e| format!("{}: {e}", file.display()))?;
    syn::parse_file(&text).map_err(|e| format!("{}: {e}", file.display()))
}

/// The file of `mod name;` declared in a module whose files live in `dir`, and the directory
/// of that file's own children.
fn module_file(dir: &Path, name: &str, m: &syn::ItemMod) -> Result<(PathBuf, PathBuf), String> {
    for attr in &m.attrs {
        if attr.path().is_ident("path")
            && let syn::Meta::NameValue(nv) = &attr.meta
            && let syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Str(s),
                ..
            }) = &nv.value
        {
            let file = dir.join(s.value());
            let child_dir = file.parent().unwrap_or(dir).to_path_buf();
            return Ok((file, child_dir));
        }
    }
    let flat = dir.join(format!("{name}.rs"));
    if flat.is_file() {
        return Ok((flat, dir.join(name)));
    }
    let nested = dir.join(name).join("mod.rs");
    if nested.is_file() {
        return Ok((nested, dir.join(name)));
    }
    Err(format!(
        "mod {name}: neither {} nor {}",
        flat.display(),
        nested.display()
    ))
}

/// The names and paths of one module's items, not descending into its inline modules (they
/// are modules of their own).
#[derive(Default)]
struct Collector {
    imports: HashMap<String, Vec<String>>,
    refs: Vec<Ref>,
}

impl<'ast> Visit<'ast> for Collector {
    fn visit_item_mod(&mut self, _: &'ast syn::ItemMod) {}

    fn visit_item_use(&mut self, node: &'ast syn::ItemUse) {
        let line = node.use_token.span.start().line;
        let mut leaves = Vec::new();
        use_leaves(&node.tree, &mut Vec::new(), &mut leaves);
        for (alias, segments) in leaves {
            if let Some(alias) = alias {
                self.imports.insert(alias, segments.clone());
            }
            self.refs.push(Ref { segments, line });
        }
    }

    fn visit_path(&mut self, path: &'ast syn::Path) {
        if path.leading_colon.is_none() && path.segments.len() >= 2 {
            let segments = path.segments.iter().map(|s| s.ident.to_string()).collect();
            let line = path.segments[0].ident.span().start().line;
            self.refs.push(Ref { segments, line });
        }
        syn::visit::visit_path(self, path);
    }

    fn visit_macro(&mut self, mac: &'ast syn::Macro) {
        tokens_paths(mac.tokens.clone(), &mut self.refs);
        syn::visit::visit_macro(self, mac);
    }

    fn visit_attribute(&mut self, attr: &'ast syn::Attribute) {
        if let syn::Meta::List(list) = &attr.meta {
            tokens_paths(list.tokens.clone(), &mut self.refs);
        }
        syn::visit::visit_attribute(self, attr);
    }
}

/// Each name a `use` tree brings in (`None` for a glob or `_`) with its whole path.
fn use_leaves(
    tree: &syn::UseTree,
    prefix: &mut Vec<String>,
    out: &mut Vec<(Option<String>, Vec<String>)>,
) {
    match tree {
        syn::UseTree::Path(p) => {
            prefix.push(p.ident.to_string());
            use_leaves(&p.tree, prefix, out);
            prefix.pop();
        }
        syn::UseTree::Name(n) => {
            let name = n.ident.to_string();
            if name == "self" {
                out.push((prefix.last().cloned(), prefix.clone()));
            } else {
                let mut path = prefix.clone();
                path.push(name.clone());
                out.push((Some(name), path));
            }
        }
        syn::UseTree::Rename(r) => {
            let mut path = prefix.clone();
            if r.ident != "self" {
                path.push(r.ident.to_string());
            }
            let alias = r.rename.to_string();
            out.push(((alias != "_").then_some(alias), path));
        }
        syn::UseTree::Glob(_) => out.push((None, prefix.clone())),
        syn::UseTree::Group(g) => {
            for item in &g.items {
                use_leaves(item, prefix, out);
            }
        }
    }
}

/// Paths (`a::b::c`) in a token stream: a macro's input or an attribute's arguments, which
/// `syn` does not parse (`#[schema(schema_with = crate::x::f)]`, `json!`...).
fn tokens_paths(tokens: TokenStream, refs: &mut Vec<Ref>) {
    let mut current: Vec<String> = Vec::new();
    let mut line = 0;
    let mut colons = 0;
    let flush = |current: &mut Vec<String>, refs: &mut Vec<Ref>, line: usize| {
        if current.len() >= 2 {
            refs.push(Ref {
                segments: std::mem::take(current),
                line,
            });
        }
        current.clear();
    };
    for token in tokens {
        match token {
            TokenTree::Ident(ident) => {
                if current.is_empty() || colons == 2 {
                    if current.is_empty() {
                        line = ident.span().start().line;
                    }
                    current.push(ident.to_string());
                } else {
                    flush(&mut current, refs, line);
                    line = ident.span().start().line;
                    current.push(ident.to_string());
                }
                colons = 0;
            }
            TokenTree::Punct(p) if p.as_char() == ':' && colons < 2 && !current.is_empty() => {
                colons += 1;
            }
            TokenTree::Group(g) => {
                flush(&mut current, refs, line);
                colons = 0;
                tokens_paths(g.stream(), refs);
            }
            TokenTree::Punct(_) | TokenTree::Literal(_) => {
                flush(&mut current, refs, line);
                colons = 0;
            }
        }
    }
    flush(&mut current, refs, line);
}
