;;; ragd-test.el --- ERT tests for ragd.el -*- lexical-binding: t; -*-

;;; Commentary:

;; Run them in batch mode from this directory, with the command
;;
;;   `emacs --batch -Q -L . -l ragd.el -l ragd-test.el
;;          -f ert-run-tests-batch-and-exit'
;;
;; The tests tagged `daemon' talk to a real ragd serving the vault in
;; contrib/editortest/testdata/vault: RAGD_SOCKET names its socket and
;; RAGD_TEST_VAULT the vault's directory.  Without them they are skipped.
;; contrib/editortest (go test ./contrib/editortest) sets both up.

;;; Code:

(require 'cl-lib)
(require 'ert)
(require 'ragd)

;;;; Without a daemon

(ert-deftest ragd-test-socket-path ()
  (let ((process-environment (copy-sequence process-environment))
        (ragd-socket nil))
    (setenv "RAGD_SOCKET" "/run/x/r.sock")
    (should (equal (ragd-socket-path) "/run/x/r.sock"))
    (let ((ragd-socket "/opt/y.sock"))
      (should (equal (ragd-socket-path) "/opt/y.sock")))
    (setenv "RAGD_SOCKET" nil)
    (setenv "XDG_RUNTIME_DIR" "/run/user/7")
    (should (equal (ragd-socket-path) "/run/user/7/ragd/ragd.sock"))
    (setenv "XDG_RUNTIME_DIR" "relative")
    (should (equal (ragd-socket-path) (format "/tmp/ragd-%d/ragd.sock" (user-uid))))))

(ert-deftest ragd-test-refuses-unsafe-socket ()
  (let* ((dir (make-temp-file "ragd-test" t))
         (sock (expand-file-name "ragd.sock" dir))
         (ragd-socket sock))
    (unwind-protect
        (progn
          (set-file-modes dir #o700)
          (should-not (ragd--check-socket sock))
          (should (string-match-p "belongs to uid" (ragd--check-socket sock (1+ (user-uid)))))
          (set-file-modes dir #o777)
          (let ((err (should-error (ragd-request "GET" "/v1/status") :type 'ragd-error)))
            (should (string-match-p "writable by others" (cadr err)))))
      (delete-directory dir t))))

(ert-deftest ragd-test-parse-response ()
  (let ((ok "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 10\r\n\r\n{\"a\":\"b\"}\n"))
    (should (equal (nth 2 (ragd--parse-response ok nil)) "{\"a\":\"b\"}\n"))
    (should (equal (nth 0 (ragd--parse-response ok nil)) 200))
    ;; Incomplete: more is needed, or an error at EOF.
    (should-not (ragd--parse-response (substring ok 0 -3) nil))
    (should-not (ragd--parse-response "HTTP/1.1 200 OK\r\nContent-Le" nil))
    (should-error (ragd--parse-response (substring ok 0 -3) t) :type 'ragd-error))
  (let ((chunked "HTTP/1.1 404 Not Found\r\nTransfer-Encoding: chunked\r\n\r\n5\r\n{\"err\r\n9\r\nor\":\"x\"}\n\r\n0\r\n\r\n"))
    (should-not (ragd--parse-response (substring chunked 0 -7) nil))
    (should (equal (ragd--parse-response chunked nil)
                   '(404 (("transfer-encoding" . "chunked")) "{\"error\":\"x\"}\n"))))
  (should (equal (nth 2 (ragd--parse-response "HTTP/1.0 200 OK\r\n\r\nabc" t)) "abc")))

(ert-deftest ragd-test-answer ()
  (should (equal (ragd--answer '(200 nil "{\"results\":[{\"path\":\"a.md\"}],\"grounded\":true}"))
                 '((results ((path . "a.md"))) (grounded . t))))
  (let ((err (should-error (ragd--answer '(400 nil "{\"error\":\"query is empty\"}"))
                           :type 'ragd-error)))
    (should (equal (cdr err) '("ragd: query is empty (HTTP 400)" 400))))
  ;; Non-ASCII survives the byte-level transport.
  (should (equal (alist-get 'text (ragd--answer
                                   (list 200 nil (encode-coding-string "{\"text\":\"Belém\"}" 'utf-8))))
                 "Belém")))

(ert-deftest ragd-test-not-running ()
  (let* ((ragd-socket (expand-file-name "no-such-dir/ragd.sock" temporary-file-directory))
         (err (should-error (ragd-request "GET" "/v1/status") :type 'ragd-error)))
    (should (string-match-p "not running" (cadr err)))))

;; The parts of STRING in face `ragd-match', in order.
(defun ragd-test--matched (string)
  "Return the runs of STRING whose face includes `ragd-match'."
  (let ((pos 0) (out nil))
    (while (< pos (length string))
      (let ((next (next-single-property-change pos 'face string (length string)))
            (face (get-text-property pos 'face string)))
        (when (or (eq face 'ragd-match) (and (listp face) (memq 'ragd-match face)))
          (push (substring-no-properties string pos next) out))
        (setq pos next)))
    (nreverse out)))

(ert-deftest ragd-test-status-string ()
  (should (equal (ragd-status-string '((state . "embedding") (vector (pending . 22000))))
                 "ragd: embedding 22000"))
  (should (equal (ragd-status-string '((state . "embedding")
                                       (vector (pending . 5) (last_error . "uselite: model not found"))))
                 "ragd: embedding 5 (paused)"))
  (should (equal (ragd-status-string '((state . "indexing") (progress (done . 3) (total . 10))))
                 "ragd: indexing 3/10"))
  (should (equal (ragd-status-string '((state . "idle"))) "ragd: idle")))

(ert-deftest ragd-test-result-label-highlights-matches ()
  ;; Byte offsets, as ragd sends them: "Belém" has a two-byte é.
  (let* ((snippet "Belém tram 28:\nconcentric rings on the leaves")
         (from (1+ (length (encode-coding-string "Belém tram 28:" 'utf-8))))
         (r `((path . "a.md") (line_start . 3) (line_end . 4) (heading . "Trips > Lisbon")
              (text . "whole text")
              (snippet (text . ,snippet) (line_start . 3) (line_end . 4)
                       (matches (0 6) (,from ,(+ from 10)) (,(+ from 11) ,(+ from 16))))))
         (label (ragd--result-label r)))
    (should (equal (substring-no-properties label)
                   "a.md:3-4  Trips > Lisbon  Belém tram 28: concentric rings on the leaves"))
    (should (equal (ragd-test--matched label) '("Belém" "concentric" "rings"))))
  ;; No snippet: the text and the result's matches; cut to the width.
  (let ((preview (ragd--preview '((text . "  Keep 7 daily snapshots and 4 weekly")
                                  (matches (9 14) (31 37)))
                                20)))
    (should (equal (substring-no-properties preview) "Keep 7 daily snapsh…"))
    (should (equal (ragd-test--matched preview) '("daily")))))

(ert-deftest ragd-test-note-label-title-once ()
  (should (equal (ragd--note-label '((path . "coffee/niche.md") (title . "Coffee Grinder Niche")
                                     (heading . "Coffee Grinder Niche > Notes") (line_start . 7) (why . "links")))
                 "coffee/niche.md:7  Coffee Grinder Niche > Notes  [links]"))
  (should (equal (ragd--note-label '((path . "tea.md") (title . "Tea") (heading . "Tea") (line_start . 0)))
                 "tea.md  Tea"))
  (should (equal (ragd--note-label '((path . "x.md") (title . "X") (heading . "Other > Part") (line_start . 2)))
                 "x.md:2  X > Other > Part")))

;;;; Against a daemon

(defun ragd-test--vault-file (rel)
  "Return the absolute path of REL in the test vault."
  (expand-file-name rel (getenv "RAGD_TEST_VAULT")))

(defmacro ragd-test--with-daemon (&rest body)
  "Run BODY when a test daemon is configured, else skip."
  (declare (indent 0))
  `(progn
     (skip-unless (and (getenv "RAGD_SOCKET") (getenv "RAGD_TEST_VAULT")))
     (let ((ragd-socket nil)
           (ragd-timeout 20))
       (unwind-protect (progn ,@body)
         (dolist (b (buffer-list))
           (when (and (buffer-file-name b)
                      (string-prefix-p (file-truename (getenv "RAGD_TEST_VAULT"))
                                       (file-truename (buffer-file-name b))))
             (kill-buffer b)))))))

(defun ragd-test--file-lines (file from to)
  "Return lines FROM to TO of FILE."
  (with-temp-buffer
    (insert-file-contents file)
    (goto-char (point-min))
    (forward-line (1- from))
    (let ((start (point)))
      (forward-line (1+ (- to from)))
      (buffer-substring-no-properties start (point)))))

(defvar ragd-test--offered nil
  "The candidates the last stubbed `completing-read' offered.")

(defmacro ragd-test--choosing (choose &rest body)
  "Run BODY with `completing-read' answering with CHOOSE.
CHOOSE is called with the candidate strings, in the order offered, and
returns one.  The candidates are stored in `ragd-test--offered'."
  (declare (indent 1))
  `(cl-letf (((symbol-function 'completing-read)
              (lambda (_prompt coll &rest _)
                (let ((cands (all-completions "" coll)))
                  (setq ragd-test--offered cands)
                  (funcall ,choose cands)))))
     ,@body))

(ert-deftest ragd-test-never-sends-to-unsafe-socket ()
  "RAGD_TEST_UNSAFE_SOCKET is an impostor where another user could have put it.
The Go side counts what reaches it."
  (ragd-test--with-daemon
    (let ((unsafe (getenv "RAGD_TEST_UNSAFE_SOCKET")))
      (should unsafe)
      (let* ((ragd-socket unsafe)
             (err (should-error (ragd-request "POST" "/v1/search" '((query . "secret project plans")))
                                :type 'ragd-error)))
        (should (string-match-p "refusing socket" (cadr err)))))))

(ert-deftest ragd-test-status ()
  :tags '(daemon)
  (ragd-test--with-daemon
    ;; Other suites may trigger a short reindex: wait for idle.
    (let ((st (ragd-request "GET" "/v1/status"))
          (deadline (+ (float-time) 10)))
      (while (and (not (equal (alist-get 'state st) "idle"))
                  (< (float-time) deadline))
        (sleep-for 0.05)
        (setq st (ragd-request "GET" "/v1/status")))
      (should (equal (alist-get 'state st) "idle"))
      (should (equal (ragd-status-string st) "ragd: idle"))
      (should (equal (alist-get 'socket st) (getenv "RAGD_SOCKET")))
      (should (= (length (alist-get 'vaults st)) 1)))))

(ert-deftest ragd-test-status-embedding-backlog ()
  :tags '(daemon)
  (ragd-test--with-daemon
    (let ((ragd-socket (getenv "RAGD_TEST_EMBEDDING_SOCKET")))
      (should ragd-socket)
      (let* ((st (ragd-request "GET" "/v1/status"))
             (pending (alist-get 'pending (alist-get 'vector st))))
        (should (equal (alist-get 'state st) "embedding"))
        (should (> pending 0))
        (should (equal (ragd-status-string) (format "ragd: embedding %d" pending)))))))

(ert-deftest ragd-test-search-highlights-matches ()
  :tags '(daemon)
  (ragd-test--with-daemon
    (let ((top (car (ragd-search-results "concentric rings blight"))))
      (should (alist-get 'snippet top))
      (let ((words (ragd-test--matched (ragd--result-label top))))
        (should words)
        (dolist (w words)
          (should (string-match-p "\\`\\(concentric\\|ring\\|blight\\)" (downcase w)))))
      (with-temp-buffer
        (ragd-test--choosing #'car
          (ragd-search "concentric rings blight"))
        (should (ragd-test--matched (car ragd-test--offered)))))))

(ert-deftest ragd-test-search-jumps-to-cited-line ()
  :tags '(daemon)
  (ragd-test--with-daemon
    (let* ((results (ragd-search-results "concentric rings blight"))
           (top (car results)))
      (should top)
      (should (equal (alist-get 'path top) "garden/Tomatoes.md"))
      (should (string-match-p "concentric rings"
                              (ragd-test--file-lines (alist-get 'abs_path top)
                                                     (alist-get 'line_start top)
                                                     (alist-get 'line_end top))))
      (with-temp-buffer
        (ragd-test--choosing #'car
          (ragd-search "concentric rings blight"))
        (should (string-prefix-p "garden/Tomatoes.md:" (car ragd-test--offered)))
        (should (equal (file-truename buffer-file-name)
                       (file-truename (ragd-test--vault-file "garden/Tomatoes.md"))))
        (should (= (line-number-at-pos) (alist-get 'line_start top)))))))

(ert-deftest ragd-test-xref-apropos ()
  :tags '(daemon)
  (ragd-test--with-daemon
    (let* ((xrefs (xref-backend-apropos 'ragd "quillmere lighthouse"))
           (loc (xref-item-location (car xrefs))))
      (should xrefs)
      (should (equal (file-truename (xref-file-location-file loc))
                     (file-truename (ragd-test--vault-file "Kayak Trip.md"))))
      (should (string-match-p "Quillmere"
                              (ragd-test--file-lines (xref-file-location-file loc)
                                                     (xref-file-location-line loc)
                                                     (xref-file-location-line loc)))))
    (with-temp-buffer
      (ragd-xref-mode 1)
      (should (eq (xref-find-backend) 'ragd))
      (should (xref-backend-definitions 'ragd "airship hangar")))))

(ert-deftest ragd-test-insert-context ()
  :tags '(daemon)
  (ragd-test--with-daemon
    (with-temp-buffer
      (insert "Question: what do the rings on the leaves mean?\n\n")
      (ragd-insert-context "concentric rings blight")
      (let ((text (buffer-string)))
        (should (string-prefix-p "Question: what do the rings" text))
        (should (string-match-p "<retrieved-context" text))
        (should (string-match-p "garden/Tomatoes\\.md" text))
        (should (string-match-p "concentric rings" text))
        (should (string-suffix-p "\n" text))))))

(ert-deftest ragd-test-similar ()
  :tags '(daemon)
  (ragd-test--with-daemon
    (find-file (ragd-test--vault-file "garden/Compost.md"))
    (ragd-test--choosing (lambda (cands)
                           (cl-find-if (lambda (c) (string-match-p "\\`garden/Tomatoes\\.md[: ]" c))
                                       cands))
      (ragd-similar))
    (should (cl-some (lambda (c) (string-match-p "\\`garden/Tomatoes\\.md[: ]" c)) ragd-test--offered))
    (should-not (cl-some (lambda (c) (string-match-p "\\`garden/Compost\\.md[: ]" c)) ragd-test--offered))
    ;; Each label names its note's title once, after the location.
    (dolist (n (ragd-similar-notes (file-truename (ragd-test--vault-file "garden/Compost.md"))))
      (let* ((label (ragd--note-label n))
             (title (alist-get 'title n))
             (pos (string-search "  " label))
             (count 0))
        (while (string-match (regexp-quote title) label pos)
          (setq count (1+ count) pos (match-end 0)))
        (should (equal (list label 1) (list label count)))))
    (should (equal (file-truename buffer-file-name)
                   (file-truename (ragd-test--vault-file "garden/Tomatoes.md"))))))

(provide 'ragd-test)
;;; ragd-test.el ends here
