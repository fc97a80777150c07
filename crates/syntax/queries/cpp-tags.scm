; Definitions and calls for tree-sitter-cpp, as for C (queries/c-tags.scm):
; whole definitions, methods defined in or out of their class, and calls.

(function_definition
  declarator: (function_declarator declarator: (identifier) @name)) @definition.function

(function_definition
  declarator: (function_declarator declarator: (field_identifier) @name)) @definition.method

(function_definition
  declarator: (function_declarator
    declarator: (qualified_identifier name: (identifier) @name))) @definition.method

(function_definition
  declarator: (pointer_declarator
    declarator: (function_declarator declarator: (identifier) @name))) @definition.function

(function_definition
  declarator: (reference_declarator
    (function_declarator declarator: (identifier) @name))) @definition.function

(declaration
  declarator: (function_declarator declarator: (identifier) @name)) @definition.function

(field_declaration
  declarator: (function_declarator declarator: (field_identifier) @name)) @definition.method

(class_specifier name: (type_identifier) @name body: (_)) @definition.class

(struct_specifier name: (type_identifier) @name body: (_)) @definition.class

(enum_specifier name: (type_identifier) @name body: (_)) @definition.type

(type_definition declarator: (type_identifier) @name) @definition.type

(alias_declaration name: (type_identifier) @name) @definition.type

(namespace_definition name: (namespace_identifier) @name) @definition.module

(preproc_function_def name: (identifier) @name) @definition.macro

(call_expression function: (identifier) @name) @reference.call

(call_expression
  function: (field_expression field: (field_identifier) @name)) @reference.call

(call_expression
  function: (qualified_identifier name: (identifier) @name)) @reference.call
