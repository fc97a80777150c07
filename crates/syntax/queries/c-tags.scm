; Definitions and calls for tree-sitter-c. The crate's own query tags a
; function by its declarator (one line) and no calls; this one tags the whole
; definition, so a hunk's enclosing function is known, and every call.

(function_definition
  declarator: (function_declarator declarator: (identifier) @name)) @definition.function

(function_definition
  declarator: (pointer_declarator
    declarator: (function_declarator declarator: (identifier) @name))) @definition.function

(declaration
  declarator: (function_declarator declarator: (identifier) @name)) @definition.function

(struct_specifier name: (type_identifier) @name body: (_)) @definition.class

(union_specifier name: (type_identifier) @name body: (_)) @definition.class

(enum_specifier name: (type_identifier) @name body: (_)) @definition.type

(type_definition declarator: (type_identifier) @name) @definition.type

(preproc_function_def name: (identifier) @name) @definition.macro

(call_expression function: (identifier) @name) @reference.call

(call_expression
  function: (field_expression field: (field_identifier) @name)) @reference.call
