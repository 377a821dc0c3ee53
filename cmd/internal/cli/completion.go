package cli

import (
	"strings"

	"github.com/spf13/cobra"

	"github.com/switchboard-mcp/switchboard/cmd/internal/termsafe"
	"github.com/switchboard-mcp/switchboard/host"
)

// completeServers completes a command's SERVER argument from the
// configs, without connecting anything (DESIGN.md F49).
func completeServers(f *Factory) func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
	names := completeServerNames(f)
	return func(cmd *cobra.Command, args []string, prefix string) ([]string, cobra.ShellCompDirective) {
		if len(args) > 0 {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		return names(cmd, args, prefix)
	}
}

// completeServerNames completes a server name wherever one goes (--server).
func completeServerNames(f *Factory) func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
	return func(_ *cobra.Command, _ []string, prefix string) ([]string, cobra.ShellCompDirective) {
		l, err := f.Load(namesOnly)
		if err != nil {
			return nil, cobra.ShellCompDirectiveError
		}
		var names []string
		for _, s := range l.Servers {
			if strings.HasPrefix(s.Name, prefix) {
				names = append(names, termsafe.Line(s.Name))
			}
		}
		return names, cobra.ShellCompDirectiveNoFileComp
	}
}

// completeTools completes tool names. It starts the host, which with a warm
// cache answers at the startup gate.
func completeTools(f *Factory) func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
	return func(cmd *cobra.Command, args []string, prefix string) ([]string, cobra.ShellCompDirective) {
		if len(args) > 0 {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		s, err := f.openCatalog(cmd.Context(), needs{})
		if err != nil {
			return nil, cobra.ShellCompDirectiveError
		}
		defer s.Close()
		tools, err := s.Tools(cmd.Context(), host.ViewFilter{})
		if err != nil {
			return nil, cobra.ShellCompDirectiveError
		}
		var names []string
		for _, t := range tools {
			if strings.HasPrefix(t.Name, prefix) {
				names = append(names, t.Name+"\t"+firstLine(t.Description))
			}
		}
		return names, cobra.ShellCompDirectiveNoFileComp
	}
}
