; Definitions and calls for tree-sitter-c-sharp. The crate's own query ends
; with a capture the tags engine refuses (`@module`) and tags no plain calls.

(class_declaration name: (identifier) @name) @definition.class

(struct_declaration name: (identifier) @name) @definition.class

(record_declaration name: (identifier) @name) @definition.class

(interface_declaration name: (identifier) @name) @definition.interface

(enum_declaration name: (identifier) @name) @definition.type

(method_declaration name: (identifier) @name) @definition.method

(constructor_declaration name: (identifier) @name) @definition.method

(property_declaration name: (identifier) @name) @definition.property

(namespace_declaration name: (_) @name) @definition.module

(invocation_expression function: (identifier) @name) @reference.call

(invocation_expression
  function: (member_access_expression name: (identifier) @name)) @reference.call

(object_creation_expression type: (identifier) @name) @reference.class
