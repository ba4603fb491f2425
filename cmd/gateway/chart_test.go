package main

import (
	"bytes"
	"errors"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/capgate/capgate/gateway"
	"github.com/capgate/capgate/internal/telemetry"
	"github.com/capgate/capgate/providers/registry"
)

// The chart test renders deploy/helm/capgate with the helm CLI (deploy/helm/tool's Go tool, or
// CAPGATE_TEST_HELM when scripts/test.sh built it already) and checks it against this binary:
// every environment variable it sets is a setting the gateway reads and their values load; the
// probes are the gateway's probe routes on its port; the termination grace period covers the
// drain; the migration Job runs `gateway migrate` before the pods of a release.

const chartDir = "../../deploy/helm/capgate"

// shutdownMargin is what a stopping gateway does after the drain: commit what is queued,
// return its credit leases and flush the last spans (5 s at most).
const shutdownMargin = 10 * time.Second

// helm runs the helm CLI with args and returns its stdout.
func helm(t *testing.T, args ...string) []byte {
	t.Helper()
	var cmd *exec.Cmd
	if bin := os.Getenv("CAPGATE_TEST_HELM"); bin != "" {
		cmd = exec.Command(bin, args...)
	} else {
		// go tool builds helm from its own module, so the product's go.mod stays free of it.
		abs, err := filepath.Abs(chartDir)
		if err != nil {
			t.Fatal(err)
		}
		for i, a := range args {
			if a == chartDir || strings.HasPrefix(a, chartDir+"/") {
				args[i] = abs + strings.TrimPrefix(a, chartDir)
			}
		}
		cmd = exec.Command("go", append([]string{"tool", "helm"}, args...)...)
		cmd.Dir = filepath.Join(abs, "..", "tool")
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("helm %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return stdout.Bytes()
}

// k8sObject is the part of a rendered manifest the test reads.
type k8sObject struct {
	Kind     string `yaml:"kind"`
	Metadata struct {
		Name        string            `yaml:"name"`
		Labels      map[string]string `yaml:"labels"`
		Annotations map[string]string `yaml:"annotations"`
	} `yaml:"metadata"`
	StringData map[string]string `yaml:"stringData"`
	Spec       struct {
		// A Service's selector is the labels; the others' hold them in matchLabels.
		Selector       map[string]any `yaml:"selector"`
		ScaleTargetRef struct {
			Kind string `yaml:"kind"`
			Name string `yaml:"name"`
		} `yaml:"scaleTargetRef"`
		Template struct {
			Metadata struct {
				Labels map[string]string `yaml:"labels"`
			} `yaml:"metadata"`
			Spec podSpec `yaml:"spec"`
		} `yaml:"template"`
	} `yaml:"spec"`
}

type podSpec struct {
	TerminationGracePeriodSeconds *int        `yaml:"terminationGracePeriodSeconds"`
	Containers                    []container `yaml:"containers"`
}

type container struct {
	Name  string   `yaml:"name"`
	Args  []string `yaml:"args"`
	Ports []struct {
		Name          string `yaml:"name"`
		ContainerPort int    `yaml:"containerPort"`
	} `yaml:"ports"`
	Env []struct {
		Name      string  `yaml:"name"`
		Value     *string `yaml:"value"`
		ValueFrom *struct {
			SecretKeyRef *struct {
				Name     string `yaml:"name"`
				Key      string `yaml:"key"`
				Optional bool   `yaml:"optional"`
			} `yaml:"secretKeyRef"`
		} `yaml:"valueFrom"`
	} `yaml:"env"`
	StartupProbe   *probe `yaml:"startupProbe"`
	LivenessProbe  *probe `yaml:"livenessProbe"`
	ReadinessProbe *probe `yaml:"readinessProbe"`
	Lifecycle      struct {
		PreStop struct {
			Exec struct {
				Command []string `yaml:"command"`
			} `yaml:"exec"`
		} `yaml:"preStop"`
	} `yaml:"lifecycle"`
}

type probe struct {
	HTTPGet *struct {
		Path string `yaml:"path"`
		Port any    `yaml:"port"`
	} `yaml:"httpGet"`
}

func render(t *testing.T, args ...string) map[string][]k8sObject {
	t.Helper()
	out := helm(t, append([]string{"template", "rel", chartDir}, args...)...)
	objs := map[string][]k8sObject{}
	dec := yaml.NewDecoder(bytes.NewReader(out))
	for {
		var o k8sObject
		err := dec.Decode(&o)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("helm template output is not YAML: %v", err)
		}
		if o.Kind != "" {
			objs[o.Kind] = append(objs[o.Kind], o)
		}
	}
	return objs
}

// knownSettings are the environment variables the binary reads: those loadConfig asks for
// (recorded), and the standard OTEL_* variables the OpenTelemetry SDK reads.
func knownSettings(t *testing.T) map[string]bool {
	t.Helper()
	known := map[string]bool{}
	if _, err := loadConfig(func(k string) string { known[k] = true; return "" }, registry.ProviderIDs()); err != nil {
		t.Fatal(err)
	}
	for _, v := range telemetry.Variables {
		known[v] = true
	}
	return known
}

func one(t *testing.T, objs map[string][]k8sObject, kind string) k8sObject {
	t.Helper()
	if len(objs[kind]) != 1 {
		t.Fatalf("%d %s objects rendered, want 1", len(objs[kind]), kind)
	}
	return objs[kind][0]
}

func TestHelmChart(t *testing.T) {
	helm(t, "lint", "--strict", chartDir, "-f", chartDir+"/ci/test-values.yaml")
	known := knownSettings(t)
	routes := map[string]bool{}
	for _, r := range gateway.New(gateway.Options{}).App().GetRoutes() {
		if r.Method == "GET" {
			routes[r.Path] = true
		}
	}

	t.Run("test values", func(t *testing.T) {
		objs := render(t, "-f", chartDir+"/ci/test-values.yaml")
		secret := one(t, objs, "Secret")
		dep := one(t, objs, "Deployment")
		job := one(t, objs, "Job")

		// Every env var is known, and the Deployment's environment, secrets resolved, loads.
		for _, o := range []k8sObject{dep, job} {
			c := o.Spec.Template.Spec.Containers[0]
			env := map[string]string{}
			for _, e := range c.Env {
				if !known[e.Name] {
					t.Errorf("%s sets %s, which the gateway does not read", o.Kind, e.Name)
				}
				switch {
				case e.Value != nil:
					env[e.Name] = *e.Value
				case e.ValueFrom != nil && e.ValueFrom.SecretKeyRef != nil:
					ref := e.ValueFrom.SecretKeyRef
					v, ok := secret.StringData[ref.Key]
					if ref.Name != secret.Metadata.Name || (!ok && !ref.Optional) {
						t.Errorf("%s: %s reads key %s of secret %s, which the chart's secret %s lacks", o.Kind, e.Name, ref.Key, ref.Name, secret.Metadata.Name)
					}
					env[e.Name] = v
				default:
					t.Errorf("%s: %s has neither a value nor a secret reference", o.Kind, e.Name)
				}
			}
			cfg, err := loadConfig(func(k string) string { return env[k] }, registry.ProviderIDs())
			if err != nil {
				t.Fatalf("%s: the rendered environment does not load: %v", o.Kind, err)
			}
			if !cfg.Tracing.Enabled || cfg.RedisURL == "" || cfg.MasterKey == nil || cfg.ProviderKeys["serpapi"] != "serp-secret" ||
				cfg.ProviderURLs["pypi"] != "http://pypi-mirror.internal" || !slices.Equal(cfg.TraceProviders, []string{"pypi"}) {
				t.Errorf("%s: values did not reach the configuration: %+v", o.Kind, cfg)
			}
			if o.Kind == "Deployment" {
				checkPod(t, o, cfg.Addr, routes)
			}
		}
		if args := dep.Spec.Template.Spec.Containers[0].Args; !slices.Equal(args, []string{"serve"}) {
			t.Errorf("Deployment args %v, want [serve]", args)
		}
		if args := job.Spec.Template.Spec.Containers[0].Args; !slices.Equal(args, []string{"migrate"}) {
			t.Errorf("migration Job args %v, want [migrate]", args)
		}
		// Once per release, before the release's pods: a pre-install/pre-upgrade hook named by
		// revision, after the secret it reads.
		if h := job.Metadata.Annotations["helm.sh/hook"]; h != "pre-install,pre-upgrade" || !strings.HasSuffix(job.Metadata.Name, "-migrate-1") {
			t.Errorf("migration Job %s hook %q", job.Metadata.Name, h)
		}
		sw, _ := strconv.Atoi(secret.Metadata.Annotations["helm.sh/hook-weight"])
		jw, _ := strconv.Atoi(job.Metadata.Annotations["helm.sh/hook-weight"])
		if secret.Metadata.Annotations["helm.sh/hook"] != "pre-install,pre-upgrade" || sw >= jw {
			t.Errorf("the secret (hook %q weight %d) is not made before the migration Job (weight %d)", secret.Metadata.Annotations["helm.sh/hook"], sw, jw)
		}
		pods := dep.Spec.Template.Metadata.Labels
		for _, kind := range []string{"PodDisruptionBudget", "ServiceMonitor", "Service"} {
			o := one(t, objs, kind)
			sel := o.Spec.Selector
			if m, ok := sel["matchLabels"].(map[string]any); ok {
				sel = m
			}
			if len(sel) == 0 {
				t.Errorf("%s selects nothing", kind)
			}
			// The ServiceMonitor selects the Service, which carries the pods' labels too.
			for k, v := range sel {
				if pods[k] != v {
					t.Errorf("%s selects %s=%v, which the pods lack", kind, k, v)
				}
			}
		}
		if hpa := one(t, objs, "HorizontalPodAutoscaler"); hpa.Spec.ScaleTargetRef.Kind != "Deployment" || hpa.Spec.ScaleTargetRef.Name != dep.Metadata.Name {
			t.Errorf("the HPA scales %s %s", hpa.Spec.ScaleTargetRef.Kind, hpa.Spec.ScaleTargetRef.Name)
		}
	})

	t.Run("existing secret", func(t *testing.T) {
		objs := render(t, "--set", "existingSecret=capgate-secrets", "--set", "secrets.providerKeys.serpapi=x")
		if len(objs["Secret"]) != 0 {
			t.Errorf("a secret was rendered although existingSecret names one")
		}
		dep := one(t, objs, "Deployment")
		for _, e := range dep.Spec.Template.Spec.Containers[0].Env {
			if !known[e.Name] {
				t.Errorf("Deployment sets %s, which the gateway does not read", e.Name)
			}
			if e.ValueFrom != nil && e.ValueFrom.SecretKeyRef != nil && e.ValueFrom.SecretKeyRef.Name != "capgate-secrets" {
				t.Errorf("%s reads secret %s, want capgate-secrets", e.Name, e.ValueFrom.SecretKeyRef.Name)
			}
		}
	})

	t.Run("unknown setting in extraEnv is caught", func(t *testing.T) {
		objs := render(t, "-f", chartDir+"/ci/test-values.yaml", "--set", "extraEnv.GATEWAY_NO_SUCH_SETTING=1")
		found := false
		for _, e := range one(t, objs, "Deployment").Spec.Template.Spec.Containers[0].Env {
			if e.Name == "GATEWAY_NO_SUCH_SETTING" && known[e.Name] {
				t.Fatal("a made-up setting counts as known: the check cannot fail")
			}
			found = found || e.Name == "GATEWAY_NO_SUCH_SETTING"
		}
		if !found {
			t.Fatal("extraEnv did not reach the Deployment")
		}
	})
}

// checkPod checks the Deployment's probes, port and termination against the gateway.
func checkPod(t *testing.T, dep k8sObject, addr string, routes map[string]bool) {
	t.Helper()
	spec := dep.Spec.Template.Spec
	c := spec.Containers[0]
	_, port, err := net.SplitHostPort(addr)
	if err != nil {
		t.Fatalf("GATEWAY_ADDR %q: %v", addr, err)
	}
	ports := map[string]int{}
	for _, p := range c.Ports {
		ports[p.Name] = p.ContainerPort
	}
	for _, pc := range []struct {
		name string
		p    *probe
		path string
	}{{"liveness", c.LivenessProbe, "/healthz"}, {"readiness", c.ReadinessProbe, "/readyz"}, {"startup", c.StartupProbe, "/healthz"}} {
		if pc.p == nil || pc.p.HTTPGet == nil {
			t.Errorf("no %s probe", pc.name)
			continue
		}
		if pc.p.HTTPGet.Path != pc.path || !routes[pc.p.HTTPGet.Path] {
			t.Errorf("%s probe on %s, want the gateway's GET %s", pc.name, pc.p.HTTPGet.Path, pc.path)
		}
		name, _ := pc.p.HTTPGet.Port.(string)
		if strconv.Itoa(ports[name]) != port {
			t.Errorf("%s probe on port %v (%d), the gateway listens on %s", pc.name, pc.p.HTTPGet.Port, ports[name], port)
		}
	}
	if spec.TerminationGracePeriodSeconds == nil {
		t.Fatal("no terminationGracePeriodSeconds")
	}
	grace := time.Duration(*spec.TerminationGracePeriodSeconds) * time.Second
	var sleep time.Duration
	if cmd := c.Lifecycle.PreStop.Exec.Command; len(cmd) == 2 && strings.HasSuffix(cmd[0], "sleep") {
		n, err := strconv.Atoi(cmd[1])
		if err != nil {
			t.Fatalf("preStop %v", cmd)
		}
		sleep = time.Duration(n) * time.Second
	}
	if need := sleep + gateway.DrainTimeout + shutdownMargin; grace < need {
		t.Errorf("terminationGracePeriodSeconds %s < preStop %s + drain %s + %s: the pod is killed mid-drain", grace, sleep, gateway.DrainTimeout, shutdownMargin)
	}
}
