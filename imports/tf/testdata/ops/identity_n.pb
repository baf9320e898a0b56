
?
xPlaceholder*
dtype0* 
shape:ÿÿÿÿÿÿÿÿÿ

ReluRelux*
T0

TanhTanhx*
T0
)
idn	IdentityNReluTanh*
T
2

yMulidnidn:1*
T0
!
b_outIdentityidn:1*
T0"ª