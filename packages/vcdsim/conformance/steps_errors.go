package main

import (
	"encoding/xml"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/vmware/go-vcloud-director/v2/govcd"
	types "github.com/vmware/go-vcloud-director/v2/types/v56"
)

const missingUuid = "00000000-0000-4000-8000-00000000dead"

// errorMissing: a name nobody has is the SDK's ErrorEntityNotFound; an id nobody has is VCD's 403
// (it does not tell "missing" from "not yours"), in the XML and the CloudAPI error shapes.
func errorMissing(r *run) (string, error) {
	if err := need(r.org != nil, "the org"); err != nil {
		return "", err
	}
	if _, err := r.org.GetVDCByName("no-such-vdc", true); !errors.Is(err, govcd.ErrorEntityNotFound) {
		return "", fmt.Errorf("GetVDCByName(missing): %v, want ErrorEntityNotFound", err)
	}
	status, vcdErr, err := rawGet(r, r.cfg.url+"/api/vApp/vm-"+missingUuid)
	if err != nil {
		return "", err
	}
	if status != 403 || vcdErr.MajorErrorCode != 403 || vcdErr.MinorErrorCode != "ACCESS_TO_RESOURCE_IS_FORBIDDEN" {
		return "", fmt.Errorf("GET missing VM: %d %+v", status, vcdErr)
	}
	_, err = r.client.GetAlbPoolById("urn:vcloud:loadBalancerPool:" + missingUuid)
	if err == nil || !strings.Contains(err.Error(), "ACCESS_TO_RESOURCE_IS_FORBIDDEN") {
		return "", fmt.Errorf("GetAlbPoolById(missing): %v, want ACCESS_TO_RESOURCE_IS_FORBIDDEN", err)
	}
	return "not found / 403 / 403", nil
}

// rawGet GETs a legacy path with the session and decodes VCD's Error body, if any.
func rawGet(r *run, href string) (int, *types.Error, error) {
	status, body, err := send(r, http.MethodGet, href, "", "")
	if err != nil {
		return 0, nil, err
	}
	vcdErr := &types.Error{}
	if status >= 400 {
		if err := xml.Unmarshal(body, vcdErr); err != nil {
			return status, nil, fmt.Errorf("error body is not VCD's Error: %w: %s", err, body)
		}
	}
	return status, vcdErr, nil
}

func errorWrongPassword(r *run) (string, error) {
	client, err := newClient(r.cfg)
	if err != nil {
		return "", err
	}
	err = client.Authenticate(r.cfg.user, "wrong-"+r.cfg.password, r.cfg.org)
	if err == nil || !strings.Contains(err.Error(), "401") {
		return "", fmt.Errorf("Authenticate(wrong password): %v, want a 401", err)
	}
	return err.Error(), nil
}

// errorBogusToken: a bearer token VCD never issued is 401; an unknown API token is refused.
func errorBogusToken(r *run) (string, error) {
	client, err := newClient(r.cfg)
	if err != nil {
		return "", err
	}
	err = client.SetToken(r.cfg.org, govcd.BearerTokenHeader, "bogus-token")
	if err == nil || !strings.Contains(err.Error(), "401") {
		return "", fmt.Errorf("SetToken(bogus bearer): %v, want a 401", err)
	}
	client, err = newClient(r.cfg)
	if err != nil {
		return "", err
	}
	if err := client.SetToken(r.cfg.org, govcd.ApiTokenHeader, "bogus-api-token"); err == nil {
		return "", fmt.Errorf("SetToken(bogus API token) succeeded")
	}
	return "401 / refused", nil
}

// logout ends the session (CloudAPI's sessions/current after a password login, the legacy
// /api/session after a token login); the token is refused afterwards.
func logout(r *run) (string, error) {
	if err := need(r.client != nil, "a login"); err != nil {
		return "", err
	}
	c := &r.client.Client
	path := "/api/session"
	if r.cfg.login == "password" {
		path = "/cloudapi/1.0.0/sessions/current"
		endpoint, err := c.OpenApiBuildEndpoint("1.0.0/sessions/current")
		if err != nil {
			return "", err
		}
		if err := c.OpenApiDeleteItem(apiVersion, endpoint, nil, nil); err != nil {
			return "", err
		}
	} else {
		status, body, err := send(r, http.MethodDelete, r.cfg.url+path, "", "")
		if err != nil || status != http.StatusNoContent {
			return "", fmt.Errorf("DELETE %s: %d %s %v, want 204", path, status, body, err)
		}
	}
	status, _, err := rawGet(r, r.cfg.url+"/api/org")
	if err != nil {
		return "", err
	}
	if status != http.StatusUnauthorized {
		return "", fmt.Errorf("GET /api/org after logout: %d, want 401", status)
	}
	return "DELETE " + path, nil
}
