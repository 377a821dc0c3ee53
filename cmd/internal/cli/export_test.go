package cli

// ServingAncestor is servingAncestor, for the external tests.
var ServingAncestor = servingAncestor
