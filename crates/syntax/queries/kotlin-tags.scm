; Definitions and calls for tree-sitter-kotlin-ng, whose crate ships no tags
; query. Captures follow tree-sitter's tags convention (@definition.<kind>,
; @reference.<kind>, @name).

(class_declaration
  name: (identifier) @name) @definition.class

(object_declaration
  name: (identifier) @name) @definition.class

(function_declaration
  name: (identifier) @name) @definition.function

(call_expression
  (identifier) @name) @reference.call

(call_expression
  (navigation_expression
    (identifier) @name .)) @reference.call
