package toolsearch

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// BenchmarkNeeds reports recall@1, recall@5 and MRR of the index and of
// plain word overlap on each need set (MiniSearch's are TestMiniSearch's).
func BenchmarkNeeds(b *testing.B) {
	for _, set := range needSets {
		docs, ns := needs(b, set)
		for _, r := range []struct {
			name string
			rank func([]Doc) ranker
		}{{"index", func(d []Doc) ranker { return indexRanker(New(d)) }}, {"overlap", overlapRanker}} {
			b.Run(set+"/"+r.name, func(b *testing.B) {
				var f figures
				for b.Loop() {
					f, _ = measure(r.rank(docs), ns, all)
				}
				b.ReportMetric(f.at1, "recall@1")
				b.ReportMetric(f.at5, "recall@5")
				b.ReportMetric(f.mrr, "MRR")
			})
		}
	}
}

// replicated is the real tools of both corpora copied under other
// servers' names until there are n: a large host's tool set, with real
// descriptions and the real mix of words.
func replicated(t testing.TB, n int) []Doc {
	real := corpusDocs(t, "corpus", "corpus-extra")
	out := make([]Doc, 0, n)
	for copyN := 0; len(out) < n; copyN++ {
		for _, d := range real {
			if len(out) == n {
				break
			}
			if copyN > 0 {
				server := fmt.Sprintf("%s%d", d.Server, copyN)
				d.ID = strings.Replace(d.ID, "__"+d.Server+"__", "__"+server+"__", 1)
				d.Name, d.Server = d.ID, server
			}
			out = append(out, d)
		}
	}
	return out
}

// BenchmarkSearchReal times a search (each need of both sets in turn,
// the first ten hits with why) and an index build at 100, 1,000 and
// 10,000 real tools.
func BenchmarkSearchReal(b *testing.B) {
	var queries []string
	for _, set := range needSets {
		_, ns := needs(b, set)
		for _, n := range ns {
			queries = append(queries, n.Query)
		}
	}
	wordNet() // read once, as a host's first search does
	embedNear()
	learnedWords()
	for _, n := range []int{100, 1000, 10000} {
		docs := replicated(b, n)
		b.Run(fmt.Sprintf("search/tools=%d", n), func(b *testing.B) {
			ix := New(docs)
			i := 0
			start := cpuTime()
			for b.Loop() {
				ix.Search(queries[i%len(queries)], 10)
				i++
			}
			reportCPU(b, start)
		})
		b.Run(fmt.Sprintf("build/tools=%d", n), func(b *testing.B) {
			start := cpuTime()
			for b.Loop() {
				New(docs)
			}
			reportCPU(b, start)
		})
	}
}

// reportCPU reports the CPU time per op since start, beside ns/op (wall
// clock). A GC running on another core counts too.
func reportCPU(b *testing.B, start time.Duration) {
	if start > 0 {
		b.ReportMetric(float64(cpuTime()-start)/float64(b.N), "cpu-ns/op")
	}
}

// TestMiniSearch measures the MiniSearch baseline (testdata/minisearch.mjs)
// on the need sets, when node and the minisearch package are here:
// $SWITCHBOARD_MINISEARCH names a node_modules that has it (it is no
// peer of the project's). The index must beat it on every set.
func TestMiniSearch(t *testing.T) {
	dir := os.Getenv("SWITCHBOARD_MINISEARCH")
	if dir == "" {
		t.Skip("SWITCHBOARD_MINISEARCH names no node_modules with minisearch")
	}
	if _, err := os.Stat(filepath.Join(dir, "minisearch", "package.json")); err != nil {
		t.Fatalf("SWITCHBOARD_MINISEARCH: %v", err)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("no node on PATH")
	}
	docs, _ := needs(t, "needs-tuning")
	noShared := map[string][]string{}
	for _, set := range needSets {
		_, ns := needs(t, set)
		noShared[set] = []string{} // the set is measured, though none is listed
		for _, n := range ns {
			if !sharesWord(docs, n) {
				noShared[set] = append(noShared[set], n.Query)
			}
		}
	}
	in, _ := json.Marshal(noShared)
	cmd := exec.Command(node, "testdata/minisearch.mjs", "testdata")
	cmd.Env = append(os.Environ(), "NODE_PATH="+dir)
	cmd.Stdin = bytes.NewReader(in)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("minisearch.mjs: %v", err)
	}
	type fig struct {
		N             int
		At1, At5, MRR float64
	}
	var got map[string]struct{ All, NoShared fig }
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("minisearch.mjs said %q: %v", out, err)
	}
	rank := indexRanker(New(docs))
	for _, set := range needSets {
		_, ns := needs(t, set)
		ms := got[set]
		f, _ := measure(rank, ns, all)
		t.Logf("%s: MiniSearch recall@1 %.3f recall@5 %.3f MRR %.3f; no shared word recall@5 %.3f MRR %.3f; the index %v",
			set, ms.All.At1, ms.All.At5, ms.All.MRR, ms.NoShared.At5, ms.NoShared.MRR, f)
		if ms.All.N != len(ns) || f.at5 <= ms.All.At5 {
			t.Errorf("%s: the index's recall@5 %.3f does not beat MiniSearch's %.3f (%d needs)", set, f.at5, ms.All.At5, ms.All.N)
		}
	}
}
