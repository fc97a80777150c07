; Added to tree-sitter-php's own tags query, which tags only qualified calls:
; a plain call `lookup($id)` names its function with a bare (name).

(function_call_expression
  function: (name) @name) @reference.call
