! adasketch's Fortran 2008 interface: a module over the C interface (adasketch/adasketch.h) with
! iso_c_binding. A learner lives on the caller's communicator (the integer handle of `use mpi`);
! every call except adasketch_local_range and adasketch_weights is collective. Each rank passes its
! own block of an example's features: local features lo..hi of adasketch_local_range (1-based here),
! dense (hi − lo + 1 values) or sparse (ascending 1-based local indices). status is ADASKETCH_OK (0)
! on success; adasketch_last_error() then says what failed.
module adasketch
  use, intrinsic :: iso_c_binding
  implicit none
  private

  integer, parameter, public :: ADASKETCH_OK = 0

  type, public :: adasketch_learner
    type(c_ptr) :: handle = c_null_ptr
  end type adasketch_learner

  public :: adasketch_create, adasketch_free, adasketch_local_range, adasketch_step_dense, &
            adasketch_step_sparse, adasketch_predict_dense, adasketch_weights, adasketch_save_model, &
            adasketch_save_checkpoint, adasketch_load_checkpoint, adasketch_steps, adasketch_last_error, &
            adasketch_predict_label_dense, adasketch_predict_label_sparse, adasketch_intercept, adasketch_outputs, &
            adasketch_auto_choice

  interface
    function c_create_settings_f(comm, dim, algorithm, loss, settings, learner) &
        bind(c, name="adasketch_learner_create_settings_f") result(s)
      import :: c_int, c_int64_t, c_char, c_ptr
      integer(c_int), value :: comm
      integer(c_int64_t), value :: dim
      character(kind=c_char), intent(in) :: algorithm(*), settings(*)
      type(c_ptr), value :: loss
      type(c_ptr), intent(out) :: learner
      integer(c_int) :: s
    end function
    subroutine c_free(learner) bind(c, name="adasketch_learner_free")
      import :: c_ptr
      type(c_ptr), value :: learner
    end subroutine
    function c_local_range(learner, lo, hi) bind(c, name="adasketch_learner_local_range") result(s)
      import :: c_ptr, c_int64_t, c_int
      type(c_ptr), value :: learner
      integer(c_int64_t), intent(out) :: lo, hi
      integer(c_int) :: s
    end function
    function c_outputs(learner, outputs) bind(c, name="adasketch_learner_outputs") result(s)
      import :: c_ptr, c_int
      type(c_ptr), value :: learner
      integer(c_int), intent(out) :: outputs
      integer(c_int) :: s
    end function
    function c_auto(learner, decided, eta, alpha0) bind(c, name="adasketch_learner_auto") result(s)
      import :: c_ptr, c_int, c_double
      type(c_ptr), value :: learner
      integer(c_int), intent(out) :: decided
      real(c_double), intent(out) :: eta, alpha0
      integer(c_int) :: s
    end function
    function c_steps(learner, steps) bind(c, name="adasketch_learner_steps") result(s)
      import :: c_ptr, c_int64_t, c_int
      type(c_ptr), value :: learner
      integer(c_int64_t), intent(out) :: steps
      integer(c_int) :: s
    end function
    function c_step_dense(learner, x, label, loss, mistake) bind(c, name="adasketch_step_dense") result(s)
      import :: c_ptr, c_double, c_int
      type(c_ptr), value :: learner
      real(c_double), intent(in) :: x(*)
      real(c_double), value :: label
      real(c_double), intent(out) :: loss
      integer(c_int), intent(out) :: mistake
      integer(c_int) :: s
    end function
    function c_step_sparse(learner, nnz, indices, values, label, loss, mistake) &
        bind(c, name="adasketch_step_sparse") result(s)
      import :: c_ptr, c_int64_t, c_double, c_int
      type(c_ptr), value :: learner
      integer(c_int64_t), value :: nnz
      integer(c_int64_t), intent(in) :: indices(*)
      real(c_double), intent(in) :: values(*)
      real(c_double), value :: label
      real(c_double), intent(out) :: loss
      integer(c_int), intent(out) :: mistake
      integer(c_int) :: s
    end function
    function c_predict_dense(learner, x, scores) bind(c, name="adasketch_predict_dense") result(s)
      import :: c_ptr, c_double, c_int
      type(c_ptr), value :: learner
      real(c_double), intent(in) :: x(*)
      real(c_double), intent(out) :: scores(*)
      integer(c_int) :: s
    end function
    function c_predict_label_dense(learner, x, label) bind(c, name="adasketch_predict_label_dense") result(s)
      import :: c_ptr, c_double, c_int
      type(c_ptr), value :: learner
      real(c_double), intent(in) :: x(*)
      real(c_double), intent(out) :: label
      integer(c_int) :: s
    end function
    function c_predict_label_sparse(learner, nnz, indices, values, label) &
        bind(c, name="adasketch_predict_label_sparse") result(s)
      import :: c_ptr, c_int64_t, c_double, c_int
      type(c_ptr), value :: learner
      integer(c_int64_t), value :: nnz
      integer(c_int64_t), intent(in) :: indices(*)
      real(c_double), intent(in) :: values(*)
      real(c_double), intent(out) :: label
      integer(c_int) :: s
    end function
    function c_intercept(learner, intercept) bind(c, name="adasketch_intercept") result(s)
      import :: c_ptr, c_double, c_int
      type(c_ptr), value :: learner
      real(c_double), intent(out) :: intercept(*)
      integer(c_int) :: s
    end function
    function c_weights(learner, w) bind(c, name="adasketch_weights") result(s)
      import :: c_ptr, c_double, c_int
      type(c_ptr), value :: learner
      real(c_double), intent(out) :: w(*)
      integer(c_int) :: s
    end function
    function c_save_model(learner, path) bind(c, name="adasketch_save_model") result(s)
      import :: c_ptr, c_char, c_int
      type(c_ptr), value :: learner
      character(kind=c_char), intent(in) :: path(*)
      integer(c_int) :: s
    end function
    function c_save_checkpoint(learner, path) bind(c, name="adasketch_save_checkpoint") result(s)
      import :: c_ptr, c_char, c_int
      type(c_ptr), value :: learner
      character(kind=c_char), intent(in) :: path(*)
      integer(c_int) :: s
    end function
    function c_load_checkpoint(learner, path) bind(c, name="adasketch_load_checkpoint") result(s)
      import :: c_ptr, c_char, c_int
      type(c_ptr), value :: learner
      character(kind=c_char), intent(in) :: path(*)
      integer(c_int) :: s
    end function
    function c_last_error() bind(c, name="adasketch_last_error") result(p)
      import :: c_ptr
      type(c_ptr) :: p
    end function
    function c_strlen(p) bind(c, name="strlen") result(n)
      import :: c_ptr, c_size_t
      type(c_ptr), value :: p
      integer(c_size_t) :: n
    end function
  end interface

contains

  ! A NUL-terminated copy of a Fortran string (trailing blanks dropped).
  pure function c_string(text) result(out)
    character(len=*), intent(in) :: text
    character(kind=c_char) :: out(len_trim(text) + 1)
    integer :: i
    do i = 1, len_trim(text)
      out(i) = text(i:i)
    end do
    out(len_trim(text) + 1) = c_null_char
  end function c_string

  ! A real as text that reads back to the same value (17 significant digits).
  function real_text(x) result(text)
    real(c_double), intent(in) :: x
    character(len=:), allocatable :: text
    character(len=32) :: buffer
    write (buffer, '(ES25.17E3)') x
    text = trim(adjustl(buffer))
  end function real_text

  function integer_text(n) result(text)
    integer(c_int64_t), intent(in) :: n
    character(len=:), allocatable :: text
    character(len=24) :: buffer
    write (buffer, '(I0)') n
    text = trim(buffer)
  end function integer_text

  ! Collective. A learner by its algorithm name (as `adasketch train --algo`) over dim features split
  ! uniformly over comm's ranks; the other hyperparameters are the library's defaults unless given,
  ! as arguments or by name in `settings`: blank-separated member=value pairs, members and values as
  ! adasketch_learner_create_settings takes them (adasketch.h), e.g. 'delta=0.5 eta_schedule=inv-t'.
  ! bias: B > 0 appends the constant feature B to every example (`adasketch train --bias`; the caller
  ! passes only the data's features); labels: the caller's labels, ascending (the two of a binary loss,
  ! or the K classes of softmax).
  subroutine adasketch_create(learner, comm, dim, algorithm, status, loss, ell, eta, alpha0, form, lambda1, lambda2, &
                              diag_rescale, settings, bias, labels)
    type(adasketch_learner), intent(out) :: learner
    integer, intent(in) :: comm
    integer(c_int64_t), intent(in) :: dim
    character(len=*), intent(in) :: algorithm
    integer, intent(out) :: status
    character(len=*), intent(in), optional :: loss, form, settings
    integer(c_int64_t), intent(in), optional :: ell
    real(c_double), intent(in), optional :: eta, alpha0, lambda1, lambda2, bias, labels(:)
    logical, intent(in), optional :: diag_rescale
    character(len=:), allocatable :: text
    character(kind=c_char), allocatable, target :: c_loss(:)
    type(c_ptr) :: loss_ptr
    integer :: i
    text = ''
    if (present(form)) text = text // ' form=' // trim(form)
    if (present(ell)) text = text // ' ell=' // integer_text(ell)
    if (present(eta)) text = text // ' eta=' // real_text(eta)
    if (present(alpha0)) text = text // ' alpha0=' // real_text(alpha0)
    if (present(lambda1)) text = text // ' lambda1=' // real_text(lambda1)
    if (present(lambda2)) text = text // ' lambda2=' // real_text(lambda2)
    if (present(diag_rescale)) text = text // merge(' diag_rescale=true ', ' diag_rescale=false', diag_rescale)
    if (present(bias)) text = text // ' bias=' // real_text(bias)
    if (present(labels)) then
      text = text // ' labels='
      do i = 1, size(labels)
        if (i > 1) text = text // ','
        text = text // real_text(labels(i))
      end do
    end if
    if (present(settings)) text = text // ' ' // settings
    loss_ptr = c_null_ptr
    if (present(loss)) then
      c_loss = c_string(loss)
      loss_ptr = c_loc(c_loss)
    end if
    status = c_create_settings_f(int(comm, c_int), dim, c_string(algorithm), loss_ptr, c_string(text), learner%handle)
  end subroutine adasketch_create

  subroutine adasketch_free(learner)
    type(adasketch_learner), intent(inout) :: learner
    call c_free(learner%handle)
    learner%handle = c_null_ptr
  end subroutine adasketch_free

  ! Local. This rank's features: global lo..hi (1-based; hi < lo for an empty block).
  subroutine adasketch_local_range(learner, lo, hi, status)
    type(adasketch_learner), intent(in) :: learner
    integer(c_int64_t), intent(out) :: lo, hi
    integer, intent(out) :: status
    integer(c_int64_t) :: begin, end
    status = c_local_range(learner%handle, begin, end)
    lo = begin + 1
    hi = end
  end subroutine adasketch_local_range

  ! Local. K, the scores per example (1 but for softmax).
  subroutine adasketch_outputs(learner, outputs, status)
    type(adasketch_learner), intent(in) :: learner
    integer, intent(out) :: outputs
    integer, intent(out) :: status
    integer(c_int) :: k
    status = c_outputs(learner%handle, k)
    outputs = k
  end subroutine adasketch_outputs

  ! Local. A learner created with auto_tune: whether its race is over, and the η and α it chose (or
  ! leads with while racing).
  subroutine adasketch_auto_choice(learner, decided, eta, alpha0, status)
    type(adasketch_learner), intent(in) :: learner
    logical, intent(out) :: decided
    real(c_double), intent(out) :: eta, alpha0
    integer, intent(out) :: status
    integer(c_int) :: d
    status = c_auto(learner%handle, d, eta, alpha0)
    decided = d /= 0
  end subroutine adasketch_auto_choice

  subroutine adasketch_steps(learner, steps, status)
    type(adasketch_learner), intent(in) :: learner
    integer(c_int64_t), intent(out) :: steps
    integer, intent(out) :: status
    status = c_steps(learner%handle, steps)
  end subroutine adasketch_steps

  ! Collective. One online step; loss (before the update) and mistake are optional.
  subroutine adasketch_step_dense(learner, x, label, status, loss, mistake)
    type(adasketch_learner), intent(inout) :: learner
    real(c_double), intent(in) :: x(:)
    real(c_double), intent(in) :: label
    integer, intent(out) :: status
    real(c_double), intent(out), optional :: loss
    logical, intent(out), optional :: mistake
    real(c_double) :: l
    integer(c_int) :: m
    real(c_double) :: dummy(1)
    if (size(x) > 0) then
      status = c_step_dense(learner%handle, x, label, l, m)
    else
      status = c_step_dense(learner%handle, dummy, label, l, m)
    end if
    if (present(loss)) loss = l
    if (present(mistake)) mistake = m /= 0
  end subroutine adasketch_step_dense

  ! Collective. indices: ascending 1-based local indices, with their values.
  subroutine adasketch_step_sparse(learner, indices, values, label, status, loss, mistake)
    type(adasketch_learner), intent(inout) :: learner
    integer(c_int64_t), intent(in) :: indices(:)
    real(c_double), intent(in) :: values(:)
    real(c_double), intent(in) :: label
    integer, intent(out) :: status
    real(c_double), intent(out), optional :: loss
    logical, intent(out), optional :: mistake
    integer(c_int64_t) :: zero_based(max(size(indices), 1))
    real(c_double) :: v(max(size(values), 1))
    real(c_double) :: l
    integer(c_int) :: m
    zero_based(1:size(indices)) = indices - 1
    v(1:size(values)) = values
    status = c_step_sparse(learner%handle, int(size(indices), c_int64_t), zero_based, v, label, l, m)
    if (present(loss)) loss = l
    if (present(mistake)) mistake = m /= 0
  end subroutine adasketch_step_sparse

  ! Collective. scores(1:K) = Wᵀx.
  subroutine adasketch_predict_dense(learner, x, scores, status)
    type(adasketch_learner), intent(in) :: learner
    real(c_double), intent(in) :: x(:)
    real(c_double), intent(out) :: scores(:)
    integer, intent(out) :: status
    real(c_double) :: dummy(1)
    if (size(x) > 0) then
      status = c_predict_dense(learner%handle, x, scores)
    else
      status = c_predict_dense(learner%handle, dummy, scores)
    end if
  end subroutine adasketch_predict_dense

  ! Collective. The label predicted for an example (dense: this rank's hi − lo + 1 values; sparse:
  ! ascending 1-based local indices and their values), in the caller's labels.
  subroutine adasketch_predict_label_dense(learner, x, label, status)
    type(adasketch_learner), intent(in) :: learner
    real(c_double), intent(in) :: x(:)
    real(c_double), intent(out) :: label
    integer, intent(out) :: status
    real(c_double) :: dummy(1)
    if (size(x) > 0) then
      status = c_predict_label_dense(learner%handle, x, label)
    else
      status = c_predict_label_dense(learner%handle, dummy, label)
    end if
  end subroutine adasketch_predict_label_dense

  subroutine adasketch_predict_label_sparse(learner, indices, values, label, status)
    type(adasketch_learner), intent(in) :: learner
    integer(c_int64_t), intent(in) :: indices(:)
    real(c_double), intent(in) :: values(:)
    real(c_double), intent(out) :: label
    integer, intent(out) :: status
    integer(c_int64_t) :: zero_based(max(size(indices), 1))
    real(c_double) :: v(max(size(values), 1))
    zero_based(1:size(indices)) = indices - 1
    v(1:size(values)) = values
    status = c_predict_label_sparse(learner%handle, int(size(indices), c_int64_t), zero_based, v, label)
  end subroutine adasketch_predict_label_sparse

  ! Collective. intercept(1:K) = B·W(d + 1, 1:K), the bias feature's weights (zeros without a bias).
  subroutine adasketch_intercept(learner, intercept, status)
    type(adasketch_learner), intent(in) :: learner
    real(c_double), intent(out) :: intercept(:)
    integer, intent(out) :: status
    status = c_intercept(learner%handle, intercept)
  end subroutine adasketch_intercept

  ! Local. This rank's rows of W: w((j − lo)·K + k) = W(j, k) for j = lo..hi.
  subroutine adasketch_weights(learner, w, status)
    type(adasketch_learner), intent(in) :: learner
    real(c_double), intent(out) :: w(:)
    integer, intent(out) :: status
    real(c_double) :: dummy(1)
    if (size(w) > 0) then
      status = c_weights(learner%handle, w)
    else
      status = c_weights(learner%handle, dummy)
    end if
  end subroutine adasketch_weights

  subroutine adasketch_save_model(learner, path, status)
    type(adasketch_learner), intent(in) :: learner
    character(len=*), intent(in) :: path
    integer, intent(out) :: status
    status = c_save_model(learner%handle, c_string(path))
  end subroutine adasketch_save_model

  subroutine adasketch_save_checkpoint(learner, path, status)
    type(adasketch_learner), intent(inout) :: learner
    character(len=*), intent(in) :: path
    integer, intent(out) :: status
    status = c_save_checkpoint(learner%handle, c_string(path))
  end subroutine adasketch_save_checkpoint

  subroutine adasketch_load_checkpoint(learner, path, status)
    type(adasketch_learner), intent(inout) :: learner
    character(len=*), intent(in) :: path
    integer, intent(out) :: status
    status = c_load_checkpoint(learner%handle, c_string(path))
  end subroutine adasketch_load_checkpoint

  ! The message of the calling thread's last failed call.
  function adasketch_last_error() result(message)
    character(len=:), allocatable :: message
    type(c_ptr) :: p
    character(kind=c_char), pointer :: chars(:)
    integer :: i, n
    p = c_last_error()
    n = int(c_strlen(p))
    call c_f_pointer(p, chars, [n])
    allocate(character(len=n) :: message)
    do i = 1, n
      message(i:i) = chars(i)
    end do
  end function adasketch_last_error

end module adasketch
